import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import type { ProtectionInput } from '../../contracts/protection';
import { createUiStore } from '../stores/ui';
import { createFakeClock } from '../testing/fakeClock';
import { countingKeys, fakeTradingApi } from '../trading/testing/api';
import { createPositionsStore } from '../trading/positionsStore';
import { recordedFill, recordedReply } from '../trading/testing/serverAnswers';
import type { OutputLine } from '../terminal/output';
import { POPOVER_HIDE_MS, createQuickTradeModel } from './quickTrade';
import { placeSignalTrade, signalTradeError } from './signalTrade';

/** What the server answered to `btc long 150`: 0.001 BTC, worth 100.68 USDT. */
const FILL = recordedFill('btc long 150');

function setup(token: string | null = 'tok') {
  const { server, session, trading } = fakeTradingApi(token);
  const ui = createUiStore();
  const positions = createPositionsStore();
  const clock = createFakeClock();
  const deps = { trading, session, ui, positions, newKey: countingKeys() };
  const toasts: [string, string][] = [];
  const printed: OutputLine[] = [];
  const reports = {
    toast: (text: string, tone: string) => void toasts.push([text, tone]),
    print: (lines: readonly OutputLine[]) => void printed.push(...lines),
  };
  const model = createQuickTradeModel({ ...deps, ...reports, clock });
  return { server, session, ui, positions, clock, deps, model, toasts, printed, reports };
}

describe('a trade from a signal (docs/product.md §5, §8)', () => {
  it('places a market order through the same path as the terminal and says so', async () => {
    const t = setup();
    t.server.on('POST /orders', () => ({ status: 200, body: FILL }));
    const result = await placeSignalTrade(t.deps, 'btc', 'long', 150);
    // The card says what filled (not "with 150 USDT"), in the terminal's words.
    expect(result).toMatchObject({
      ok: true,
      message:
        'Successfully placed LONG order for BTC/USDT with 150 USDT. Filled LONG 0.001 BTC ≈ 100.68 USDT of BTC/USDT at ' +
        '100,683.1, fee 0.05 USDT. Your BTC long is now 0.003 BTC. Not exactly 150 USDT: BTC trades in steps of 0.001 BTC ≈ 100.68 USDT ' +
        '(100.68 or 201.37), so the order is the nearest, 0.001 BTC ≈ 100.68 USDT. Paper exchange: no real funds.',
    });
    expect(JSON.parse(t.server.requests[0]?.body ?? '{}')).toEqual({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: 150,
      // Counted as the card's in the trade history.
      source: 'card',
    });
    expect(t.server.requests[0]?.idempotencyKey).toBe('key-1');
    expect(t.positions.refreshRequests.value.count).toBe(1);
  });

  it('sends the default bracket as the protection while it is on, and says what the answer says of it', async () => {
    const t = setup();
    const bracket = signal<ProtectionInput | undefined>(undefined);
    t.server.on('POST /orders', () => ({
      status: 200,
      body: {
        ...FILL,
        protection: {
          stop_loss: { price: 98_669.44, on: 'exchange', state: 'resting' },
          take_profit: null,
          trailing: null,
          exit_at: null,
          unprotected_ms: 120,
          note: null,
        },
      },
    }));
    const model = createQuickTradeModel({ ...t.deps, ...t.reports, clock: t.clock, bracket });
    model.openRow('9', 'BTC', 'long');
    await model.trade('long', 150);
    expect(JSON.parse(t.server.requests[0]?.body ?? '{}')).not.toHaveProperty('protection');
    bracket.value = { stop_loss_pct: 2 };
    model.openRow('9', 'BTC', 'long');
    await model.trade('long', 150);
    expect(JSON.parse(t.server.requests[1]?.body ?? '{}').protection).toEqual({ stop_loss_pct: 2 });
    expect(t.toasts.at(-1)?.[0]).toMatch(
      /Paper exchange: no real funds\. Stop loss 98,669\.4: resting on the paper exchange\. Unprotected for 120 ms\.$/,
    );
    model.dispose();
  });

  it('needs a ticker, then a login (which opens the login modal)', async () => {
    const guest = setup(null);
    expect(await placeSignalTrade(guest.deps, null, 'long', 100)).toMatchObject({
      ok: false,
      message: 'Asset ticker not found.',
    });
    // A tag the card shows without a contract (a stablecoin, FTT) is refused before the login.
    expect(await placeSignalTrade(guest.deps, 'USDC', 'long', 100)).toMatchObject({
      ok: false,
      message: 'USDC has no futures contract here.',
      reason: 'not-tradable',
    });
    expect(await placeSignalTrade(guest.deps, 'FTT', 'long', 100)).toMatchObject({
      message: 'FTT has no futures contract here.',
    });
    expect(guest.ui.authModal.value).toBeNull();
    expect(await placeSignalTrade(guest.deps, 'ETH', 'short', 100)).toMatchObject({
      ok: false,
      message: 'You must be logged in.',
    });
    expect(guest.ui.authModal.value).toBe('login');
    expect(guest.server.requests).toEqual([]);
  });

  it('shows a string detail as "Error: …", a validation list as loc -> msg joined by "; ", else the fallback', async () => {
    const t = setup();
    t.server.on('POST /orders', () => ({ status: 400, body: { detail: 'Margin is insufficient.' } }));
    expect((await placeSignalTrade(t.deps, 'BTC', 'long', 100)).message).toBe(
      'Error: Margin is insufficient.',
    );
    t.server.on('POST /orders', () => ({
      status: 422,
      body: {
        detail: [
          { loc: ['body', 'amount'], msg: 'Total must be greater than zero.', type: 'too_small' },
          { loc: ['body', 'symbol'], msg: 'Unknown symbol.', type: 'custom' },
        ],
      },
    }));
    expect((await placeSignalTrade(t.deps, 'BTC', 'long', 100)).message).toBe(
      'Error: body.amount -> Total must be greater than zero.; body.symbol -> Unknown symbol.',
    );
    t.server.on('POST /orders', () => ({ status: 500, body: 'oops' }));
    expect((await placeSignalTrade(t.deps, 'BTC', 'long', 100)).message).toBe(
      'An error occurred during the trade.',
    );
    expect(signalTradeError(new Error('network'))).toBe('An error occurred during the trade.');
  });
});

describe('the quick-trade popover', () => {
  it('opens on hover when logged in and hides 700 ms after the mouse leaves', () => {
    const t = setup();
    t.model.hover('1', 'BTC');
    expect(t.model.popover.value).toEqual({ signalId: '1', ticker: 'BTC', row: null });
    t.model.leave();
    t.clock.advance(POPOVER_HIDE_MS - 1);
    expect(t.model.popover.value).not.toBeNull();
    t.model.hover('1', 'BTC'); // back on the popover before it hid
    t.clock.advance(POPOVER_HIDE_MS * 2);
    expect(t.model.popover.value).not.toBeNull();
    t.model.leave();
    t.clock.advance(POPOVER_HIDE_MS);
    expect(t.model.popover.value).toBeNull();
  });

  it('never opens for a guest on hover; the keyboard row asks them to log in', () => {
    const t = setup(null);
    t.model.hover('1', 'BTC');
    expect(t.model.popover.value).toBeNull();
    t.model.openRow('1', 'BTC', 'long');
    expect(t.model.popover.value).toBeNull();
    expect(t.ui.authModal.value).toBe('login');
    expect(t.toasts).toEqual([['You must be logged in.', 'error']]);
    expect(t.printed).toEqual([]);
  });

  it('never opens for a tag without a contract: hover shows nothing, the keyboard row says why', async () => {
    const t = setup();
    t.model.hover('1', 'USDC');
    expect(t.model.popover.value).toBeNull();
    t.model.openRow('1', 'USDC', 'long');
    expect(t.model.popover.value).toBeNull();
    t.model.openRow('1', 'FTT', 'short');
    expect(t.model.popover.value).toBeNull();
    expect(t.toasts).toEqual([
      ['USDC has no futures contract here.', 'error'],
      ['FTT has no futures contract here.', 'error'],
    ]);
    await t.model.trade('long', 100);
    expect(t.server.requests).toEqual([]);
    expect(t.ui.authModal.value).toBeNull();
  });

  it('trades from the open row, closes on success, and says so in a toast and in the terminal', async () => {
    const t = setup();
    t.server.on('POST /orders', () => recordedReply('eth short 250'));
    t.model.openRow('4', 'ETH', 'short');
    await t.model.trade('short', 250);
    expect(t.model.popover.value).toBeNull();
    expect(t.toasts).toEqual([
      [
        'Successfully placed SHORT order for ETH/USDT with 250 USDT. Filled SHORT 0.079 ETH ≈ 249.16 USDT of ' +
          'ETH/USDT at 3,153.94, fee 0.12 USDT. Paper exchange: no real funds.',
        'success',
      ],
    ]);
    // The one log: the card, the server's answer and the account, as `eth short 250` prints them.
    const id = recordedFill('eth short 250').id;
    expect(t.printed).toEqual([
      {
        tone: 'success',
        text:
          `Card #4: Success! Order ID: ${id}. Filled SHORT 0.079 ETH ≈ 249.16 USDT of ETH/USDT at 3,153.94, ` +
          'fee 0.12 USDT. Paper exchange: no real funds.',
      },
    ]);
  });

  it('places one order for 30 presses at once (a held Enter on an amount button), and reports it once', async () => {
    const t = setup();
    t.server.on('POST /orders', () => recordedReply('eth short 250'));
    t.model.openRow('4', 'ETH', 'short');
    await Promise.all(Array.from({ length: 30 }, () => t.model.trade('short', 250)));
    expect(t.server.requests.filter((r) => r.method === 'POST' && r.path === '/orders')).toHaveLength(1);
    expect(t.toasts).toHaveLength(1);
    expect(t.printed).toHaveLength(1);
  });

  it('keeps the popover open after a refusal, and leaves no timer after dispose', async () => {
    const t = setup();
    t.server.on('POST /orders', () => ({ status: 400, body: { detail: 'Nope.' } }));
    t.model.hover('2', 'ETH');
    await t.model.trade('long', 100);
    expect(t.toasts).toEqual([['Error: Nope.', 'error']]);
    expect(t.printed).toEqual([{ tone: 'error', code: 'failed', text: 'Card #2: Error: Nope.' }]);
    expect(t.model.popover.value?.ticker).toBe('ETH');
    t.model.leave();
    t.model.dispose();
    expect(t.clock.pendingTimers()).toBe(0);
  });
});
