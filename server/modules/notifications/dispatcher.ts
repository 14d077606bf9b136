import type { FastifyBaseLogger } from 'fastify';
import { every, type Clock, type Disposer } from '../../../src/contracts/clock';
import type { BusEventMap } from '../../../src/contracts/events';
import type { NotificationSettings } from '../../../src/contracts/notifications';
import type { Signal } from '../../../src/contracts/signals';
import { findTicker } from '../../../src/contracts/symbols';
import type { Position } from '../../../src/contracts/trading';
import type { Note, NotificationChannel } from './channels';
import type { Reachable } from './notifications.repo';
import {
  alertNote,
  bare,
  clip,
  decisionNote,
  disputeNote,
  headlineOf,
  kindText,
  money,
  price,
  signed,
} from './notes';

/**
 * A position that has lost this share of its cushion (the way from its entry to its liquidation price) is
 * warned about once… A fixed distance from the mark would warn of every position at 20x the moment it
 * opens (its liquidation is under 5 % away).
 */
export const LIQUIDATION_WARN = 0.5;
/** …and warned about again only once it has lost less than this share again. */
export const LIQUIDATION_REARM = 0.35;
export const LIQUIDATION_CHECK_MS = 15_000;
/** Everyone's settings and channels are re-read this often too, whatever changes were missed. */
export const AUDIENCE_REFRESH_MS = 5 * 60_000;
/** How many signals' "already alerted" and "who was alerted" are remembered. */
const REMEMBERED_SIGNALS = 5_000;
const DAY_MS = 86_400_000;

export interface DispatcherDeps {
  /** Where notes go: Web Push, and the Telegram chat when that part is there. */
  channels: readonly NotificationChannel[];
  /** Users with a Telegram chat or a push subscription and their settings (one user's when given). */
  reachable(userId?: string): Promise<Reachable[]>;
  /** The users whose rules fired on a signal. */
  tradersOf(signalId: string): Promise<string[]>;
  /** The positions rules opened on a signal and nothing closed yet (whose, which asset, where). */
  openOn(signalId: string): Promise<{ userId: string; asset: string; symbol: string; account: string }[]>;
  /** The account a user chose ('paper' or a key id) and its open positions. */
  positions(userId: string): Promise<{ account: string; positions: Position[] }>;
  /** The user's realised PnL and fees in [from, to). */
  pnlBetween(userId: string, from: Date, to: Date): Promise<{ pnl: number; fees: number; fills: number }>;
  /** A young last price of a symbol (BTCUSDT), for "% since arrival". */
  priceOf(symbol: string): number | undefined;
  /** Sources whose signals reach Premium accounts only, and whether a user has Premium. */
  premiumSources: ReadonlySet<string>;
  isPremium(userId: string): Promise<boolean>;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** A bounded set of recent keys: the oldest is forgotten first. */
class Recent<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }
}

/** The next 00:00 UTC strictly after `now`. */
export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/**
 * Decides what each user gets, from the bus: alerts for completed signals at or above their threshold,
 * fills and exits of their rules, an ask rule's proposals (and their answers), retractions of stories they
 * traded or were alerted on, the question whether to close what a disputed story opened, liquidation
 * warnings and the daily PnL. Only users with a reachable channel cost any work: they are kept in memory
 * with their settings, refreshed when they change. Every handler returns at once and does its work
 * afterwards, one event after another, so that the signal stream and the rule engine never wait for a
 * notification.
 */
export class Dispatcher {
  /** Users with a channel and their settings. */
  private audience = new Map<string, NotificationSettings>();
  private readonly alertedOn = new Recent<{
    headline: string;
    assets: readonly string[];
    users: Set<string>;
  }>(REMEMBERED_SIGNALS);
  private readonly seen = new Recent<true>(REMEMBERED_SIGNALS);
  /** Stories whose dispute was asked about already. */
  private readonly asked = new Recent<true>(REMEMBERED_SIGNALS);
  /** Positions warned about ("user|account|symbol|side"), until they move away from liquidation again. */
  private readonly warned = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private readonly sending = new Set<Promise<void>>();
  private readonly timers: Disposer[] = [];
  private stopped = true;

  constructor(private readonly d: DispatcherDeps) {}

  /** Loads the audience and starts the liquidation checks and the daily PnL. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.refresh();
    this.timers.push(
      every(this.d.clock, LIQUIDATION_CHECK_MS, () => this.later(() => this.checkLiquidations())),
    );
    this.scheduleDaily();
  }

  stop(): void {
    this.stopped = true;
    for (const dispose of this.timers.splice(0)) dispose();
  }

  /** Re-reads the audience: everyone's, or one user's after their settings or channels changed. */
  async refresh(userId?: string): Promise<void> {
    const rows = await this.d.reachable(userId);
    if (userId === undefined) {
      this.audience = new Map(rows.map((r) => [r.userId, r.settings]));
      return;
    }
    const row = rows.find((r) => r.userId === userId);
    if (row === undefined) this.audience.delete(userId);
    else this.audience.set(userId, row.settings);
  }

  /** The settings it works with for a user (read again when they change), or undefined: no channel. */
  settingsOf(userId: string): NotificationSettings | undefined {
    return this.audience.get(userId);
  }

  /** How many users the dispatcher would work for. */
  get size(): number {
    return this.audience.size;
  }

  /** Resolves once everything queued so far was decided and sent (for tests and shutdown). */
  async idle(): Promise<void> {
    do {
      await this.queue;
      await Promise.all([...this.sending]);
    } while (this.sending.size > 0);
  }

  onSignal(signal: Signal): void {
    if (signal.analysis.status !== 'completed' || signal.backlog === true) return;
    // A signal is published again when another source reports it: one alert per story.
    if (this.seen.has(signal.id)) return;
    this.seen.set(signal.id, true);
    const impact = signal.analysis.impact_score;
    const users = [...this.audience]
      .filter(([, s]) => s.alerts && impact >= s.alert_threshold)
      .map(([u]) => u);
    if (users.length === 0) return;
    this.later(async () => {
      const allowed = this.d.premiumSources.has(signal.source)
        ? await filterAsync(users, (u) => this.d.isPremium(u))
        : users;
      const headline = headlineOf(signal);
      this.alertedOn.set(signal.id, { headline, assets: signal.assets, users: new Set(allowed) });
      for (const userId of allowed)
        this.send(alertNote(userId, signal, headline, (symbol) => this.d.priceOf(symbol)));
    });
  }

  onDecided(event: BusEventMap['rules.decided']): void {
    const settings = this.audience.get(event.userId);
    if (settings === undefined) return;
    const note = decisionNote(event, settings);
    if (note !== null) this.later(async () => this.send(note));
  }

  onRetracted(event: BusEventMap['signal.retracted']): void {
    if (this.audience.size === 0) return;
    this.later(async () => {
      const alerted = this.alertedOn.get(event.retractedId);
      const traders = await this.d.tradersOf(event.retractedId);
      const users = new Set([...(alerted?.users ?? []), ...traders]);
      for (const userId of users) {
        if (this.audience.get(userId)?.retractions !== true) continue;
        const traded = traders.includes(userId);
        this.send({
          kind: 'retraction',
          userId,
          title:
            alerted === undefined
              ? `Signal #${event.retractedId} was retracted`
              : `Retracted: ${alerted.headline}`,
          body: [
            `${kindText(event.kind)} (#${event.retractionId}): ${clip(event.reason, 200)}`,
            traded ? 'Your rules close what they opened on it, unless a rule keeps its positions.' : null,
          ]
            .filter((l) => l !== null)
            .join('\n'),
          ref: `signal:${event.retractedId}`,
        });
      }
    });
  }

  /**
   * A less trusted source disputes a story: nothing was closed on it, so those who hold what a rule
   * opened on it (or were alerted on it) are asked, with retractions on: a Close button for each such
   * position (and, for one alerted only, for a position they hold in its assets on their account).
   */
  onDisputed(event: BusEventMap['signal.disputed']): void {
    if (this.audience.size === 0 || this.asked.has(event.disputedId)) return;
    this.asked.set(event.disputedId, true);
    this.later(async () => {
      const alerted = this.alertedOn.get(event.disputedId);
      const open = await this.d.openOn(event.disputedId);
      const users = new Set([...(alerted?.users ?? []), ...open.map((o) => o.userId)]);
      for (const userId of users) {
        if (this.audience.get(userId)?.retractions !== true) continue;
        const held = open.filter((o) => o.userId === userId);
        const closes =
          held.length > 0 || alerted === undefined ? held : await this.heldIn(userId, alerted.assets);
        this.send(disputeNote(userId, event, closes));
      }
    });
  }

  /**
   * A position's protection changed without the user asking: a stop or target fired, a leg vanished from
   * the exchange and was placed again, a leg was refused and the position closed, a time exit keeps
   * failing. Always sent to a user with a channel: it is about money at risk.
   */
  onProtection(event: BusEventMap['trading.protection']): void {
    if (!this.audience.has(event.userId)) return;
    this.send({
      kind: 'protection',
      userId: event.userId,
      title: clip(event.text, 300),
      body: '',
      ref: `protection:${event.symbol}:${event.leg}`,
    });
  }

  /** The user's open positions, on the account they chose, in these assets (BTC → BTCUSDT). */
  private async heldIn(
    userId: string,
    assets: readonly string[],
  ): Promise<{ asset: string; symbol: string; account: string }[]> {
    const held = await this.d.positions(userId).catch(() => null);
    if (held === null) return [];
    return assets.flatMap((asset) => {
      const symbol = findTicker(asset)?.symbol ?? `${asset}USDT`;
      return held.positions.some((p) => bare(p.symbol) === symbol)
        ? [{ asset, symbol, account: held.account }]
        : [];
    });
  }

  /** Warns once per position that has lost LIQUIDATION_WARN of the way from its entry to liquidation. */
  async checkLiquidations(): Promise<void> {
    const users = [...this.audience].filter(([, s]) => s.liquidation).map(([u]) => u);
    for (const userId of users) {
      const held = await this.d.positions(userId).catch(() => null);
      if (held === null) continue;
      const open = new Set<string>();
      for (const p of held.positions) {
        const key = `${userId}|${held.account}|${p.symbol}|${p.side}`;
        open.add(key);
        if (!(p.liquidationPrice > 0) || !(p.markPrice > 0)) continue;
        const cushion = Math.abs(p.entryPrice - p.liquidationPrice);
        if (!(cushion > 0)) continue;
        // The share of the cushion lost: 0 at entry, 1 at liquidation.
        const lost =
          1 -
          (p.side === 'long' ? p.markPrice - p.liquidationPrice : p.liquidationPrice - p.markPrice) / cushion;
        const distance = Math.abs(p.markPrice - p.liquidationPrice) / p.markPrice;
        if (lost < LIQUIDATION_REARM) this.warned.delete(key);
        if (lost < LIQUIDATION_WARN || this.warned.has(key)) continue;
        this.warned.add(key);
        this.send({
          kind: 'liquidation',
          userId,
          title: `${p.symbol} ${p.side} is ${(distance * 100).toFixed(1)}% from liquidation`,
          body: `Mark ${price(p.markPrice)}, liquidation ${price(p.liquidationPrice)}. Size ${p.size}, margin ${money(p.margin)}, PnL ${signed(p.unrealizedPnl)}.`,
          actions: [{ label: 'Close', action: { kind: 'close', symbol: p.symbol, account: held.account } }],
          ref: `liquidation:${p.symbol}:${p.side}`,
        });
      }
      // A closed position is armed again for the next one.
      for (const key of this.warned)
        if (key.startsWith(`${userId}|`) && !open.has(key)) this.warned.delete(key);
    }
  }

  /** The day just ended (UTC), for every user who asked for it. */
  async sendDailyPnl(now = this.d.clock.now()): Promise<void> {
    const to = new Date(Math.floor(now / DAY_MS) * DAY_MS);
    const from = new Date(to.getTime() - DAY_MS);
    const day = from.toISOString().slice(0, 10);
    const users = [...this.audience].filter(([, s]) => s.daily_pnl).map(([u]) => u);
    for (const userId of users) {
      const result = await this.d.pnlBetween(userId, from, to).catch(() => null);
      if (result === null) continue;
      this.send({
        kind: 'pnl',
        userId,
        title: `${day}: ${signed(result.pnl - result.fees)} after fees`,
        body:
          result.fills === 0
            ? 'No fills that day.'
            : `${result.fills} fill${result.fills === 1 ? '' : 's'}, realised ${signed(result.pnl)}, fees ${money(result.fees)}.`,
        ref: `pnl:${day}`,
      });
    }
  }

  private scheduleDaily(): void {
    const now = this.d.clock.now();
    const cancel = this.d.clock.setTimer(
      () => {
        if (this.stopped) return;
        this.later(() => this.sendDailyPnl());
        this.scheduleDaily();
      },
      nextUtcMidnight(now) - now,
    );
    this.timers.push(cancel);
  }

  /** Queues work after what is queued already; a failure is logged and never stops the queue. */
  private later(work: () => Promise<void>): void {
    if (this.stopped) return;
    this.queue = this.queue
      .then(work)
      .catch((err: unknown) => this.d.log.warn({ err }, 'notification not dispatched'));
  }

  /** Delivers a note on every channel that reaches its user; never waits in the queue. */
  private send(note: Note): void {
    const sent = Promise.all(
      this.d.channels.map(async (channel) => {
        try {
          if (await channel.reaches(note.userId)) await channel.deliver(note);
        } catch (err) {
          this.d.log.warn({ err, channel: channel.name, kind: note.kind }, 'notification not delivered');
        }
      }),
    ).then(() => undefined);
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }
}

async function filterAsync<T>(items: T[], test: (item: T) => Promise<boolean>): Promise<T[]> {
  const keep = await Promise.all(items.map((item) => test(item).catch(() => false)));
  return items.filter((_, i) => keep[i]);
}
