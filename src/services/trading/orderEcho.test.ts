import { describe, expect, it } from 'vitest';
import type { OutputLine } from '../terminal/output';
import { createPositionsStore } from './positionsStore';
import { countingKeys, fakeTradingApi } from './testing/api';
import { recordedFill, recordedReply } from './testing/serverAnswers';
import { createTradePanelModel } from './tradePanel';
import { ORDER_SOURCES, echoPanelOrders, fillEcho } from './orderEcho';

function panel(token: string | null = 'tok') {
  const { server, session, trading } = fakeTradingApi(token);
  const model = createTradePanelModel({
    session,
    trading,
    positions: createPositionsStore(),
    newKey: countingKeys(),
  });
  const printed: OutputLine[] = [];
  const stop = echoPanelOrders(model.status, (lines) => void printed.push(...lines));
  return { server, model, printed, stop };
}

describe('one log: orders placed outside the terminal are echoed in it', () => {
  it("echoes the trade panel's fill in one line, naming the panel and the account", async () => {
    const t = panel();
    t.server.on('POST /orders', () => recordedReply('btc long 150'));
    await t.model.submit('buy', 150, 'BTC/USDT');
    const fill = recordedFill('btc long 150');
    expect(t.printed).toHaveLength(1);
    expect(t.printed[0]?.tone).toBe('success');
    expect(t.printed[0]?.text).toMatch(
      new RegExp(`^Trade panel: Success! Order ID: ${fill.id}\\. Filled LONG `),
    );
    expect(t.printed[0]?.text).toContain('Paper exchange: no real funds.');
    t.stop();
  });

  it("echoes the server's refusal, and nothing for a check that never reached the server", async () => {
    const t = panel();
    t.server.on('POST /orders', () => ({ status: 400, body: { detail: 'Margin is insufficient.' } }));
    await t.model.submit('buy', 0, 'BTC/USDT');
    expect(t.printed).toEqual([]);
    await t.model.submit('buy', 150, 'BTC/USDT');
    expect(t.printed).toEqual([
      { tone: 'error', code: 'failed', text: 'Trade panel: Error: Margin is insufficient.' },
    ]);
    t.stop();
    await t.model.submit('buy', 150, 'BTC/USDT');
    expect(t.printed).toHaveLength(1);
  });

  it('says a fill the way `btc long 500` does: order id, what filled, the account with its key', () => {
    const fill = {
      ...recordedFill('btc long 150'),
      account: { venue: 'bybit', mode: 'live', keyHint: 'ab…cd' },
    } as const;
    const line = fillEcho(ORDER_SOURCES.card('12'), fill);
    expect(line.text).toMatch(
      new RegExp(
        `^Card #12: Success! Order ID: ${fill.id}\\. Filled LONG .* Bybit LIVE account \\(key ab…cd\\): real funds\\.$`,
      ),
    );
  });
});
