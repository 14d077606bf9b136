import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
} from '../../../src/contracts/notifications';
import type { Decision } from '../../../src/contracts/ruleReports';
import type { Signal } from '../../../src/contracts/signals';
import type { Position } from '../../../src/contracts/trading';
import { decision as ledgerRow } from '../../../src/services/rules/testing/decisions';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import type { Note, NotificationChannel } from './channels';
import { Dispatcher, LIQUIDATION_CHECK_MS, nextUtcMidnight } from './dispatcher';
import { ALERT_AMOUNT_USD } from './notes';

const silent = {
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
} as unknown as FastifyBaseLogger;

class FakeChannel implements NotificationChannel {
  readonly notes: Note[] = [];
  constructor(
    readonly name: 'push' | 'telegram',
    private readonly reachable: Set<string>,
  ) {}
  async reaches(userId: string) {
    return this.reachable.has(userId);
  }
  async deliver(note: Note) {
    this.notes.push(note);
  }
}

function signal(id: string, impact: number, over: Partial<Signal> = {}): Signal {
  return {
    id,
    signal_id: id,
    asset: 'BTC',
    assets: ['BTC'],
    content: `Headline ${id}\nmore text`,
    metadata: {
      url: `https://news.example/${id}`,
      icon: null,
      source_name: 'Test',
      username: null,
      media_urls: [],
    },
    quote_data: null,
    analysis: {
      status: 'completed',
      impact_score: impact,
      nlp: { sentiment: 'positive', reasoning: 'ETF inflows' },
      engine: 'local',
    },
    event_type: null,
    initial_prices: { BTC: 100_000 },
    source: 'webhook',
    published_at: null,
    received_at: new Date(0).toISOString(),
    also_reported_by: [],
    ...over,
  };
}

/** The shared ledger row, as a BTC long of 200 USDT that filled 0.002 BTC at 100,000. */
function decision(over: Partial<Decision> = {}): Decision {
  return ledgerRow({
    id: '12',
    rule_name: 'BTC news',
    signal_id: '7',
    asset: 'BTC',
    symbol: 'BTCUSDT',
    side: 'long',
    amount_usd: 200,
    sentiment: 'positive',
    impact: 85,
    price: 100_000,
    quantity: 0.002,
    notional: 200,
    latency_ms: 10,
    decided_at: new Date(0).toISOString(),
    fee: 0.08,
    arrival_price: 100_000,
    ...over,
  });
}

function position(mark: number, liquidation: number, over: Partial<Position> = {}): Position {
  return {
    symbol: 'BTCUSDT',
    side: 'long',
    size: 0.01,
    entryPrice: 100_000,
    markPrice: mark,
    liquidationPrice: liquidation,
    margin: 100,
    unrealizedPnl: -5,
    leverage: 10,
    roe: -0.05,
    ...over,
  } as Position;
}

function setup(opts: {
  users: Record<string, Partial<NotificationSettings>>;
  /** Users a channel reaches (default: all of them). */
  reach?: string[];
  traders?: Record<string, string[]>;
  /** Positions rules opened and nothing closed, by signal id. */
  open?: Record<string, { userId: string; asset: string; symbol: string; account: string }[]>;
  premium?: string[];
  start?: number;
}) {
  const clock = createFakeClock(opts.start ?? Date.UTC(2026, 10, 27, 12));
  const settings = new Map(
    Object.entries(opts.users).map(([u, s]) => [u, { ...DEFAULT_NOTIFICATION_SETTINGS, ...s }]),
  );
  const channel = new FakeChannel('push', new Set(opts.reach ?? Object.keys(opts.users)));
  const held = new Map<string, Position[]>();
  const pnlAsked: { userId: string; from: Date; to: Date }[] = [];
  const dispatcher = new Dispatcher({
    channels: [channel],
    reachable: async (userId) =>
      [...settings]
        .filter(([u]) => userId === undefined || u === userId)
        .map(([u, s]) => ({ userId: u, settings: s })),
    tradersOf: async (id) => opts.traders?.[id] ?? [],
    openOn: async (id) => opts.open?.[id] ?? [],
    positions: async (userId) => ({ account: 'paper', positions: held.get(userId) ?? [] }),
    pnlBetween: async (userId, from, to) => {
      pnlAsked.push({ userId, from, to });
      return { pnl: 42.5, fees: 2.5, fills: 3 };
    },
    priceOf: (symbol) => (symbol === 'BTCUSDT' ? 101_000 : undefined),
    premiumSources: new Set(['x']),
    isPremium: async (u) => (opts.premium ?? []).includes(u),
    clock,
    log: silent,
  });
  return { clock, settings, channel, held, pnlAsked, dispatcher };
}

const kinds = (notes: Note[]) => notes.map((n) => `${n.userId}:${n.kind}`);

describe('notifications dispatcher', () => {
  it('alerts users whose threshold the impact reaches, with alerts on, once per signal', async () => {
    const { dispatcher, channel } = setup({
      users: { ann: {}, bob: { alert_threshold: 90 }, cy: { alerts: false }, dee: { alert_threshold: 50 } },
    });
    await dispatcher.start();
    dispatcher.onSignal(signal('1', 80));
    dispatcher.onSignal(signal('1', 80));
    dispatcher.onSignal({
      ...signal('2', 99),
      analysis: { status: 'analyzing', impact_score: null, nlp: null },
    });
    dispatcher.onSignal(signal('3', 95, { backlog: true }));
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual(['ann:alert', 'dee:alert']);
    const note = channel.notes[0];
    expect(note).toMatchObject({
      title: 'Headline 1',
      url: 'https://news.example/1',
      ref: 'signal:1',
      actions: [
        {
          label: `Long $${ALERT_AMOUNT_USD}`,
          action: { kind: 'order', side: 'long', symbol: 'BTCUSDT', signalId: '1' },
        },
        { label: `Short $${ALERT_AMOUNT_USD}`, action: { kind: 'order', side: 'short', symbol: 'BTCUSDT' } },
      ],
    });
    expect(note?.body).toBe('Positive · impact 80\nBTC +1.00% since arrival\nETF inflows');
    dispatcher.stop();
  });

  it('alerts on a stablecoin depeg without a Long or Short: the tag has no contract here', async () => {
    const { dispatcher, channel } = setup({ users: { ann: {} } });
    await dispatcher.start();
    dispatcher.onSignal(signal('7', 90, { asset: 'USDC', assets: ['USDC', 'BTC'] }));
    await dispatcher.idle();
    expect(channel.notes).toHaveLength(1);
    expect(channel.notes[0]?.actions).toEqual([]);
    expect(channel.notes[0]?.body).toBe('Positive · impact 90\nUSDC, BTC +1.00% since arrival\nETF inflows');
    dispatcher.stop();
  });

  it('works only for users a channel reaches, and re-reads a user whose settings changed', async () => {
    const { dispatcher, channel, settings } = setup({ users: { ann: {}, bob: {} }, reach: ['ann'] });
    await dispatcher.start();
    dispatcher.onSignal(signal('1', 85));
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual(['ann:alert']);
    settings.set('ann', { ...DEFAULT_NOTIFICATION_SETTINGS, alerts: false });
    await dispatcher.refresh('ann');
    settings.delete('bob');
    await dispatcher.refresh('bob');
    expect(dispatcher.size).toBe(1);
    dispatcher.onSignal(signal('2', 85));
    await dispatcher.idle();
    expect(channel.notes).toHaveLength(1);
    dispatcher.stop();
  });

  it("alerts on a premium source's signal only Premium users", async () => {
    const { dispatcher, channel } = setup({ users: { ann: {}, bob: {} }, premium: ['bob'] });
    await dispatcher.start();
    dispatcher.onSignal(signal('1', 85, { source: 'x' }));
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual(['bob:alert']);
    dispatcher.stop();
  });

  it("tells of a rule's fill (with Close) and exit when fills are on; proposals and their answers always", async () => {
    const { dispatcher, channel } = setup({ users: { ann: {}, bob: { fills: false } } });
    await dispatcher.start();
    for (const userId of ['ann', 'bob']) {
      dispatcher.onDecided({
        userId,
        event: 'fired',
        decision: decision({ account_mode: 'live', account_venue: 'bybit', account: 'k1' }),
      });
      dispatcher.onDecided({
        userId,
        event: 'exit',
        decision: decision({ exit_pnl: 3.2, exit: 'take profit' }),
      });
      dispatcher.onDecided({ userId, event: 'skipped', decision: decision({ outcome: 'skipped' }) });
      dispatcher.onDecided({ userId, event: 'asking', decision: decision({ outcome: 'asking', id: '13' }) });
      dispatcher.onDecided({ userId, event: 'answered', decision: decision({ outcome: 'fired', id: '13' }) });
    }
    dispatcher.onDecided({ userId: 'nobody', event: 'fired', decision: decision() });
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual([
      'ann:fill',
      'ann:exit',
      'ann:proposal',
      'ann:answered',
      'bob:proposal',
      'bob:answered',
    ]);
    const [fill, exit, proposal, answered] = channel.notes;
    expect(fill).toMatchObject({
      title: "Rule 'BTC news' bought 0.002 BTC at 100,000",
      body: 'On Bybit LIVE key, $200.00, fee $0.08.',
      actions: [{ label: 'Close', action: { kind: 'close', symbol: 'BTCUSDT', account: 'k1' } }],
    });
    expect(exit?.title).toBe("Rule 'BTC news' closed BTC long +$3.20");
    expect(proposal).toMatchObject({
      ref: 'decision:13',
      actions: [
        { label: 'Confirm', action: { kind: 'answer', decisionId: '13', answer: 'confirm' } },
        { label: 'Reject', action: { kind: 'answer', decisionId: '13', answer: 'reject' } },
      ],
    });
    expect(answered).toMatchObject({ ref: 'decision:13', replaces: true });
    expect(answered?.title).toContain('confirmed and placed');
    dispatcher.stop();
  });

  it("tells every user of a rule's exit that keeps failing, fills on or off, with Close", async () => {
    const { dispatcher, channel } = setup({ users: { ann: {}, bob: { fills: false } } });
    await dispatcher.start();
    for (const userId of ['ann', 'bob']) {
      dispatcher.onDecided({
        userId,
        event: 'exit_failing',
        decision: decision({
          account_mode: 'live',
          account_venue: 'binance',
          account: 'k1',
          exit: 'open',
          exit_state: 'open',
          exit_note: 'stop loss: -2.10% at 98; close failed (try 3): Binance is not answering. Trying again.',
        }),
      });
    }
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual(['ann:exit', 'bob:exit']);
    expect(channel.notes[0]).toMatchObject({
      title: "Rule 'BTC news' could not close BTC long yet",
      body: 'On Binance LIVE key.\nstop loss: -2.10% at 98; close failed (try 3): Binance is not answering. Trying again.\nIt keeps trying; you can close it yourself.',
      actions: [{ label: 'Close', action: { kind: 'close', symbol: 'BTCUSDT', account: 'k1' } }],
    });
    dispatcher.stop();
  });

  it('tells of a retraction those who traded the story or were alerted on it, with retractions on', async () => {
    const { dispatcher, channel } = setup({
      users: { ann: {}, bob: {}, cy: { retractions: false }, dee: { alert_threshold: 95 } },
      traders: { '1': ['bob', 'cy'] },
    });
    await dispatcher.start();
    dispatcher.onSignal(signal('1', 85));
    await dispatcher.idle();
    channel.notes.length = 0;
    dispatcher.onRetracted({
      retractedId: '1',
      retractionId: '9',
      kind: 'denial',
      reason: 'The exchange denies it.',
      receivedAt: new Date(0).toISOString(),
    });
    await dispatcher.idle();
    expect(kinds(channel.notes).sort()).toEqual(['ann:retraction', 'bob:retraction']);
    const bob = channel.notes.find((n) => n.userId === 'bob');
    expect(bob?.title).toBe('Retracted: Headline 1');
    expect(bob?.body).toContain('Denied (#9): The exchange denies it.');
    expect(bob?.body).toContain('Your rules close');
    dispatcher.stop();
  });

  it('asks those who hold what a rule opened on a disputed story, or were alerted on it, with retractions on: once, with a Close per position', async () => {
    const { dispatcher, channel, held } = setup({
      users: { ann: {}, bob: {}, cy: { retractions: false }, dee: { alert_threshold: 95 }, eve: {} },
      open: {
        '1': [
          { userId: 'bob', asset: 'BTC', symbol: 'BTCUSDT', account: 'paper' },
          { userId: 'bob', asset: 'BTC', symbol: 'BTCUSDT', account: 'k1-live-key' },
          { userId: 'cy', asset: 'BTC', symbol: 'BTCUSDT', account: 'paper' },
        ],
      },
    });
    held.set('ann', [position(100_000, 90_000, { symbol: 'BTC/USDT' })]);
    await dispatcher.start();
    // ann and eve were alerted on it; ann holds BTC, eve holds nothing.
    dispatcher.onSignal(signal('1', 85));
    await dispatcher.idle();
    channel.notes.length = 0;
    const event = {
      disputedId: '1',
      disputeId: '9',
      kind: 'denial' as const,
      reason: 'Fake, says an anonymous account.',
      sourceName: 'X',
      storySourceName: 'Reuters',
      headline: 'Headline 1',
      receivedAt: new Date(0).toISOString(),
    };
    dispatcher.onDisputed(event);
    dispatcher.onDisputed(event);
    await dispatcher.idle();
    expect(kinds(channel.notes).sort()).toEqual(['ann:dispute', 'bob:dispute', 'eve:dispute']);
    const of = (u: string) => channel.notes.find((n) => n.userId === u);
    expect(of('bob')).toMatchObject({
      title: 'A weaker source disputes a story you traded: Headline 1 — disputed by X. Nothing was closed.',
      body: 'Denied, unconfirmed (#9): Fake, says an anonymous account.',
      ref: 'dispute:1',
      actions: [
        { label: 'Close BTC', action: { kind: 'close', symbol: 'BTCUSDT', account: 'paper' } },
        {
          label: 'Close BTC (key k1-live-)',
          action: { kind: 'close', symbol: 'BTCUSDT', account: 'k1-live-key' },
        },
      ],
    });
    expect(of('ann')?.actions).toEqual([
      { label: 'Close BTC', action: { kind: 'close', symbol: 'BTCUSDT', account: 'paper' } },
    ]);
    expect(of('eve')?.title).toBe(
      'A weaker source disputes a story you were alerted on: Headline 1 — disputed by X. Nothing was closed.',
    );
    expect(of('eve')?.actions).toEqual([]);
    dispatcher.stop();
  });

  it('warns once when a position has lost half the way to liquidation, and again only after it won it back', async () => {
    const { dispatcher, channel, held, clock } = setup({ users: { ann: {}, bob: { liquidation: false } } });
    await dispatcher.start();
    // Entry 100,000, liquidation 90,000: a cushion of 10,000.
    const tick = async (mark: number) => {
      held.set('ann', [position(mark, 90_000)]);
      held.set('bob', [position(mark, 90_000)]);
      clock.advance(LIQUIDATION_CHECK_MS);
      await dispatcher.idle();
    };
    await tick(120_000);
    await tick(96_000); // 40% of the cushion lost: not yet
    expect(channel.notes).toEqual([]);
    await tick(94_000); // 60% lost
    expect(kinds(channel.notes)).toEqual(['ann:liquidation']);
    expect(channel.notes[0]?.title).toBe('BTCUSDT long is 4.3% from liquidation');
    await tick(93_000);
    await tick(96_000); // 40% lost: not far enough back to re-arm
    await tick(94_500);
    expect(channel.notes).toHaveLength(1);
    await tick(98_000); // 20% lost: re-armed
    await tick(94_000);
    expect(channel.notes).toHaveLength(2);
    // A closed position re-arms too.
    held.set('ann', []);
    clock.advance(LIQUIDATION_CHECK_MS);
    await dispatcher.idle();
    await tick(94_000);
    expect(channel.notes).toHaveLength(3);
    dispatcher.stop();
  });

  it("sends the day's PnL at 00:00 UTC to those who asked for it", async () => {
    const start = Date.UTC(2026, 10, 27, 23, 0);
    const { dispatcher, channel, clock, pnlAsked } = setup({
      users: { ann: { daily_pnl: true }, bob: {} },
      start,
    });
    expect(nextUtcMidnight(start)).toBe(Date.UTC(2026, 10, 28));
    await dispatcher.start();
    clock.advance(59 * 60_000);
    await dispatcher.idle();
    expect(channel.notes.filter((n) => n.kind === 'pnl')).toEqual([]);
    clock.advance(60_000);
    await dispatcher.idle();
    const pnl = channel.notes.filter((n) => n.kind === 'pnl');
    expect(kinds(pnl)).toEqual(['ann:pnl']);
    expect(pnl[0]).toMatchObject({
      title: '2026-11-27: +$40.00 after fees',
      body: '3 fills, realised +$42.50, fees $2.50.',
    });
    expect(pnlAsked[0]).toEqual({
      userId: 'ann',
      from: new Date(Date.UTC(2026, 10, 27)),
      to: new Date(Date.UTC(2026, 10, 28)),
    });
    // And the next day again.
    clock.advance(86_400_000);
    await dispatcher.idle();
    expect(channel.notes.filter((n) => n.kind === 'pnl')).toHaveLength(2);
    dispatcher.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('never lets a failing channel stop the others', async () => {
    const { dispatcher, channel } = setup({ users: { ann: {} } });
    const broken: NotificationChannel = {
      name: 'telegram',
      reaches: async () => true,
      deliver: async () => {
        throw new Error('down');
      },
    };
    (dispatcher as unknown as { d: { channels: NotificationChannel[] } }).d.channels = [broken, channel];
    await dispatcher.start();
    dispatcher.onSignal(signal('1', 85));
    await dispatcher.idle();
    expect(kinds(channel.notes)).toEqual(['ann:alert']);
    dispatcher.stop();
  });
});
