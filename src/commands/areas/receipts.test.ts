import { describe, expect, it } from 'vitest';
import type { Decision } from '../../contracts/rules';
import type { SourceReceipts } from '../../contracts/signals';
import { completed, makeSignal } from '../../services/feed/testing/signals';
import { createFakeClock } from '../../services/testing/fakeClock';
import { createTestConsole } from '../testing/scripted';

const T = Date.UTC(2026, 2, 5, 14, 2, 0);
const at = (ms: number) => new Date(ms).toISOString();

/** A console whose feed holds #7, published 1.2 s before the server had it, reaching this screen 16 ms after it was sent. */
function session(token: string | null = 'tok') {
  const clock = createFakeClock(T + 16);
  const s = createTestConsole({ token, clock });
  const timeline = {
    published_at: at(T - 1200),
    received_at: at(T),
    analysed_at: at(T + 3),
    sent_at: at(T + 4),
  };
  s.stores.feed.receive(
    completed(
      makeSignal(7, {
        content: 'Coinbase will list SOL perpetual futures',
        published_at: timeline.published_at,
        received_at: timeline.received_at,
        timeline,
      }),
      'positive',
      80,
      ['SOL'],
    ),
  );
  return s;
}

function decision(over: Partial<Decision>): Decision {
  return {
    id: '1',
    rule_id: 'r1',
    rule_name: 'SOL listings',
    rule_version: 1,
    signal_id: '7',
    asset: 'SOL',
    symbol: 'SOLUSDT',
    side: 'long',
    amount_usd: 200,
    outcome: 'fired',
    reason: null,
    detail: null,
    engine: 'local',
    sentiment: 'positive',
    impact: 80,
    price: 150,
    order_id: '9',
    quantity: 1.33,
    notional: 199.5,
    latency_ms: 43,
    exit: null,
    decided_at: at(T + 3),
    account: 'paper',
    account_mode: 'paper',
    account_venue: 'paper',
    fee: 0.08,
    arrival_price: 150,
    twin: null,
    exit_pnl: null,
    timeline: {
      published_at: at(T - 1200),
      received_at: at(T),
      analysed_at: at(T + 3),
      decided_at: at(T + 3),
      sent_at: at(T + 4),
      acked_at: at(T + 43),
    },
    ...over,
  };
}

describe('receipt commands', () => {
  it('why <id> shows each stage of a signal in ms, its age at arrival, and what the rules did', async () => {
    const s = session();
    s.server.on('GET /rules/ledger', () => ({ status: 200, body: [decision({})] }));
    const out = await s.type('why #7');
    expect(out).toEqual([
      'info: #7 Blockwire News: Coinbase will list SOL perpetual futures',
      expect.stringMatching(/^muted: STAGE\s+AT \(UTC\)\s+TOOK$/),
      expect.stringMatching(/^info: published\s+14:01:58\.800\s*$/),
      expect.stringMatching(/^info: received\s+14:02:00\.000\s+\+1200 ms$/),
      expect.stringMatching(/^info: analysed\s+14:02:00\.003\s+\+3 ms$/),
      expect.stringMatching(/^info: sent\s+14:02:00\.004\s+\+1 ms$/),
      expect.stringMatching(/^info: reached you\s+14:02:00\.016\s+\+12 ms$/),
      'info: Published 1.2 s before it reached you.',
      'info: Rule SOL listings: long 1.33 SOL = 199.50 USDT, 43 ms after the news: analysed 3, decided 1, paper 39.',
    ]);
    expect(s.server.requests.at(-1)?.search).toBe('?signal_id=7');
    // The id as the card shows it, or bare; Tab offers the cards' ids.
    expect((await s.type('why 7'))[0]).toBe(out[0]);
    expect(s.complete('why #')).toEqual(['#7']);
  });

  it('why says a stale skip in the words of the ledger, and reads a signal no longer in the feed from the server', async () => {
    const s = session();
    s.server.on('GET /rules/ledger', () => ({
      status: 200,
      body: [
        decision({
          outcome: 'skipped',
          reason: 'stale',
          detail: 'published 12 min ago (max 15 s)',
          order_id: null,
          quantity: null,
          notional: null,
        }),
      ],
    }));
    s.server.on('GET /signals', (req) => ({
      status: 200,
      body: req.search === '?before=43&limit=1' ? [makeSignal(42, { content: 'Old news' })] : [],
    }));
    const out = await s.type('why #42');
    expect(out[0]).toBe('info: #42 Blockwire News: Old news');
    expect(out).toContainEqual(expect.stringMatching(/^info: published\s+the source didn't say\s*$/));
    // Not seen by this screen: no "reached you" stage, no age.
    expect(out.some((l) => l.includes('reached you'))).toBe(false);
    expect(out.at(-1)).toBe('info: Rule SOL listings skipped: stale: published 12 min ago (max 15 s).');
    expect(await s.type('why #41')).toEqual(['error: There is no signal #41.']);
    expect(await s.type('why abc')).toEqual([
      'error: Give a signal id, e.g. #113 (the id on its card).',
      'muted: Usage: why <id>',
    ]);
  });

  it('why works logged out, without the rules', async () => {
    const s = session(null);
    const out = await s.type('why #7');
    expect(out.at(-1)).toBe('info: Published 1.2 s before it reached you.');
    expect(s.server.count('GET /rules/ledger')).toBe(0);
  });

  it('sources lists lag p50/p95, items per hour and the last item, and marks a lagging source', async () => {
    const s = session(null);
    const body: SourceReceipts = {
      threshold_ms: 300_000,
      sources: [
        {
          name: 'rss',
          state: 'live',
          lag_p50_ms: 42_000,
          lag_p95_ms: 420_000,
          items_per_hour: 12,
          last_item_at: at(T - 90_000),
          last_item_age_ms: 90_000,
          lagging: true,
        },
        {
          name: 'webhook',
          state: 'live',
          lag_p50_ms: 800,
          lag_p95_ms: 1500,
          items_per_hour: 3,
          last_item_at: at(T - 5000),
          last_item_age_ms: 5000,
          lagging: false,
        },
        {
          name: 'x',
          state: 'degraded',
          detail: 'X_BEARER_TOKEN is not set',
          lag_p50_ms: null,
          lag_p95_ms: null,
          items_per_hour: 0,
          last_item_at: null,
          last_item_age_ms: null,
          lagging: false,
        },
      ],
    };
    s.server.on('GET /signals/sources', () => ({ status: 200, body }));
    const out = await s.type('sources');
    expect(out).toEqual([
      expect.stringMatching(/^muted: SOURCE\s+STATE\s+LAG P50\s+LAG P95\s+ITEMS\/H\s+LAST ITEM$/),
      expect.stringMatching(/^info: rss\s+degraded \(lag\)\s+42 s\s+7 min\s+12\s+2 min ago$/),
      expect.stringMatching(/^info: webhook\s+live\s+800 ms\s+1\.5 s\s+3\s+5\.0 s ago$/),
      expect.stringMatching(/^info: x\s+degraded\s+—\s+—\s+0\s+none yet$/),
      'muted: A source whose p95 lag passes 5 min is degraded in health.',
    ]);
  });

  it('rules log shows where the time after the news went', async () => {
    const s = session();
    s.server.on('GET /rules/ledger', () => ({ status: 200, body: [decision({})] }));
    const out = await s.type('rules log');
    expect(out[0]).toContain('AFTER THE NEWS');
    expect(out[1]).toContain('43 ms: analysed 3, decided 1, paper 39');
    s.server.on('GET /rules/ledger', () => ({
      status: 200,
      body: [decision({ account: 'k1', account_mode: 'live', account_venue: 'binance' })],
    }));
    expect((await s.type('rules log'))[1]).toContain('43 ms: analysed 3, decided 1, Binance 39');
  });
});
