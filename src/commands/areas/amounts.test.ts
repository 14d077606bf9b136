import { describe, expect, it } from 'vitest';
import { completed, makeSignal } from '../../services/feed/testing/signals';
import { recordedReply } from '../../services/trading/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

describe('amounts commands', () => {
  it('lists, adds (kept ascending) and removes quick-trade amounts', async () => {
    const s = createTestConsole();
    expect(await s.type('amounts')).toEqual(['info: Quick-trade amounts (USDT): 100, 250, 1k, 5k']);
    expect(await s.type('amounts add 50')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 5k',
    ]);
    expect(await s.type('amounts add 2.5k')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 2.5k, 5k',
    ]);
    expect(await s.type('amounts rm 5k')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 2.5k',
    ]);
    expect(s.stores.quickAmounts.amounts.value).toEqual([50, 100, 250, 1000, 2500]);
  });

  it("answers the spec's messages for a bad or duplicate amount", async () => {
    const s = createTestConsole();
    expect(await s.type('amounts add 0')).toEqual(['error: Lütfen geçerli bir miktar girin.']);
    expect(await s.type('amounts add lots')).toEqual(['error: Lütfen geçerli bir miktar girin.']);
    expect(await s.type('amounts add 250')).toEqual(['error: Bu miktar zaten mevcut.']);
    expect(await s.type('amounts rm 7')).toEqual(['error: 7 is not one of the quick-trade amounts.']);
    expect(s.stores.quickAmounts.amounts.value).toEqual([100, 250, 1000, 5000]);
  });

  it('amounts bracket shows, sets and turns on the default bracket of card trades', async () => {
    const s = createTestConsole();
    expect(await s.type('amounts bracket')).toEqual([
      'info: Quick-trade bracket: off (SL 2% · TP 5% when on)',
    ]);
    expect(await s.type('amounts bracket on sl 1.5% tp 4%')).toEqual([
      'success: Quick-trade bracket: SL 1.5% · TP 4%',
    ]);
    expect(s.stores.quickBracket.protection.value).toEqual({ stop_loss_pct: 1.5, take_profit_pct: 4 });
    expect(await s.type('amounts bracket sl 3%')).toEqual(['success: Quick-trade bracket: SL 3%']);
    expect(await s.type('amounts bracket off')).toEqual([
      'success: Quick-trade bracket: off (SL 3% when on)',
    ]);
    expect(s.stores.quickBracket.protection.value).toBeUndefined();
    expect(await s.type('amounts bracket sl 200%')).toEqual([
      'error: Stop loss must be between 0.05% and 95%.',
    ]);
    expect(await s.type('amounts bracket trail 1%')).toEqual([
      "error: Invalid bracket word: 'trail'. Use on, off, sl <%> and tp <%>, e.g. amounts bracket on sl 2% tp 5%.",
    ]);
  });

  it('a card trade sends the bracket while it is on', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.stores.feed.receive(
      completed(makeSignal(4, { content: 'Solana halts blocks' }), 'negative', 85, ['SOL']),
    );
    s.server.on('POST /orders', () => recordedReply('btc long 200'));
    await s.type('1 short 200');
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).not.toHaveProperty('protection');
    await s.type('amounts bracket on sl 2% tp 5%');
    const lines = await s.type('1 short 200');
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toMatchObject({
      source: 'card',
      protection: { stop_loss_pct: 2, take_profit_pct: 5 },
    });
    // The recorded answer says nothing of a protection: the terminal says so rather than guess.
    expect(lines.at(-1)).toBe(
      "info: The server's answer does not say whether the protection was placed: check `positions`.",
    );
  });
});
