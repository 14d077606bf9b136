import { NO_PROTECTION } from '../../contracts/protection';
import { describe, expect, it } from 'vitest';
import type { Signal } from '../../contracts/signals';
import type { Position } from '../../contracts/trading';
import { createApi } from '../api';
import { decision } from '../rules/testing/decisions';
import { memoryStorage } from '../storage';
import { createStores } from '../stores';
import { createFakeClock } from '../testing/fakeClock';
import { createFakeServer } from '../testing/fakeServer';
import { createToasts } from '../toasts';
import { disputeNote, newlyDisputed, startDisputeToasts } from './disputes';
import { createFeedService } from './feedService';
import { completed, fakeStream, makeSignal } from './testing/signals';

const DISPUTE = {
  signal_id: '90',
  received_at: new Date(Date.UTC(2026, 0, 1, 12, 30)).toISOString(),
  reason: 'Visa did not integrate Solana settlement; the report is fake',
  kind: 'denial' as const,
  source_name: 'X',
};
const story = (id: number, over: Partial<Signal> = {}): Signal =>
  completed(
    makeSignal(id, { content: `Visa integrates Solana USDC settlement #${id}\nmore`, ...over }),
    'positive',
    80,
    ['SOL'],
  );
const disputed = (s: Signal): Signal => ({ ...s, dispute: DISPUTE });
const position = (symbol: string): Position => ({
  symbol,
  side: 'long',
  size: 1.5,
  entryPrice: 190,
  markPrice: 191,
  protection: NO_PROTECTION,
  liquidationPrice: 20,
  margin: 30,
  unrealizedPnl: 1.5,
  leverage: 10,
  roe: 0.05,
  notional: 286.5,
});

/** The feed service on a fake stream, with the dispute toasts started as the app starts them. */
function setup() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1, 13));
  const stores = createStores({ storage: memoryStorage(), clock });
  stores.session.setToken('t');
  const server = createFakeServer();
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate: () => undefined,
  });
  server.on('GET /signals', () => ({ status: 200, body: [] }));
  const stream = fakeStream();
  const feed = createFeedService({
    stores,
    main: api.main,
    trading: api.trading,
    mainBase: '/api',
    prices: { watch: () => () => undefined },
    stream: stream.port,
    sound: { play: () => undefined },
    clock,
  });
  const toasts = createToasts((fn, ms) => clock.setTimer(fn, ms));
  const ran: string[] = [];
  const printed: string[] = [];
  const stopFeed = feed.start();
  const stop = startDisputeToasts({
    subscribe: (listener) => feed.onSignal(listener),
    loggedIn: stores.session.isLoggedIn,
    positions: stores.positions.positions,
    ledger: stores.rules.ledger,
    toast: (text, action) =>
      toasts.push(text, 'event', { sticky: true, ...(action === null ? {} : { action }) }),
    print: (lines) => void printed.push(...lines.map((l) => l.text)),
    run: async (line) => void ran.push(line),
  });
  return {
    clock,
    stores,
    stream,
    toasts,
    ran,
    printed,
    stop: () => {
      stop();
      stopFeed();
    },
  };
}

describe('a story a weaker source disputes', () => {
  it('tells the user who holds it in a toast that stays, with Close running close <asset>, once', async () => {
    const t = setup();
    t.stores.positions.setPositions([position('SOL/USDT')], 0);
    t.stream.signal(story(5));
    t.stream.signal(disputed(story(5)));
    const expected = 'Disputed by X: Visa integrates Solana USDC settlement #5. Nothing was closed.';
    expect(t.toasts.shown.value.map((s) => [s.text, s.sticky, s.action?.label])).toEqual([
      [expected, true, 'Close SOL'],
    ]);
    expect(t.printed).toEqual([expected]);
    // It stays: long past any other toast's time.
    t.clock.advance(10 * 60_000);
    expect(t.toasts.shown.value).toHaveLength(1);
    // The same disputed card again (a price filled in) says nothing more.
    t.stream.signal(disputed(story(5, { initial_prices: { SOL: 190 } })));
    expect(t.toasts.shown.value).toHaveLength(1);
    await t.toasts.act(t.toasts.shown.value[0]!.id);
    expect(t.ran).toEqual(['close sol']);
    expect(t.toasts.shown.value).toEqual([]);
    t.stop();
  });

  it('tells one whose rule decided on it, without Close when nothing of it is open', () => {
    const t = setup();
    t.stores.rules.setLedger([decision({ signal_id: '6', asset: 'SOL', outcome: 'fired' })]);
    t.stream.signal(story(6));
    t.stream.signal(disputed(story(6)));
    expect(t.toasts.shown.value.map((s) => [s.text.slice(0, 20), s.action])).toEqual([
      ['Disputed by X: Visa ', null],
    ]);
    t.stop();
  });

  it('says nothing to one who holds nothing of it, of a card born disputed, or of a retracted one', () => {
    const t = setup();
    t.stores.positions.setPositions([position('BTC/USDT')], 0);
    t.stores.rules.setLedger([decision({ signal_id: '7', outcome: 'skipped', reason: 'budget' })]);
    t.stream.signal(story(7));
    t.stream.signal(disputed(story(7)));
    // A new report of a disputed story carries the mark from the start: it is no news of a dispute.
    t.stores.positions.setPositions([position('SOL/USDT')], 0);
    t.stream.signal(disputed(story(8)));
    const retraction = {
      signal_id: '91',
      received_at: DISPUTE.received_at,
      reason: 'x',
      kind: 'denial' as const,
    };
    t.stream.signal(story(9));
    t.stream.signal({ ...disputed(story(9)), retraction });
    expect(t.toasts.shown.value).toEqual([]);
    t.stop();
  });

  it('an older story the stream sends again disputed is news of the dispute; signed out, nothing', () => {
    const head = story(50, { received_at: new Date(Date.UTC(2026, 0, 1, 13)).toISOString() });
    const old = story(3, { received_at: new Date(Date.UTC(2026, 0, 1, 9)).toISOString() });
    expect(
      newlyDisputed(disputed(old), undefined, {
        kind: 'late',
        signal: { ...disputed(old), client_received_at: 0 },
      }),
    ).toBe(true);
    expect(newlyDisputed(disputed(old), undefined, { kind: 'ignored' })).toBe(true);
    expect(
      newlyDisputed(disputed(old), undefined, {
        kind: 'added',
        signal: { ...disputed(old), client_received_at: 0 },
      }),
    ).toBe(false);
    expect(newlyDisputed(disputed(old), disputed(old), { kind: 'ignored' })).toBe(false);

    const t = setup();
    t.stores.positions.setPositions([position('SOL/USDT')], 0);
    t.stream.signal(head);
    t.stream.signal(disputed(old));
    expect(t.toasts.shown.value.map((s) => s.text)).toEqual([
      'Disputed by X: Visa integrates Solana USDC settlement #3. Nothing was closed.',
    ]);
    t.stores.session.clear();
    t.stream.signal(story(51));
    t.stream.signal(disputed(story(51)));
    expect(t.toasts.shown.value).toHaveLength(1);
    t.stop();
  });

  it('names the asset a rule traded first, clipped headline and all', () => {
    const s = disputed(
      story(4, { content: `${'A very long headline '.repeat(8)}\nbody`, assets: ['BTC', 'SOL'] }),
    );
    const note = disputeNote(s, {
      positions: [position('BTC/USDT'), position('SOL/USDT')],
      ledger: [decision({ signal_id: '4', asset: 'SOL' })],
    });
    expect(note?.asset).toBe('SOL');
    expect(note?.text).toMatch(/^Disputed by X: A very long headline .{60,}…\. Nothing was closed\.$/);
    expect(note?.text.length).toBeLessThan(160);
  });
});
