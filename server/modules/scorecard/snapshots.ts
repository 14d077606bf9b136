import type { MarketSourceKind } from '../../../src/contracts/market';
import { HORIZON_MS, SCORE_HORIZONS, type ScoreHorizon } from '../../../src/contracts/scorecard';
import type { Signal } from '../../../src/contracts/signals';
import { contractSymbolOf } from '../../../src/contracts/symbols';
import type { Clock, Disposer } from '../market/clock';
import type { ScoreRow, ScorecardRepo } from './scorecard.repo';

/**
 * How far from its due time a price may be read and still stand for it. A timer that fires late (a
 * busy process), or a start-up that finds a price due, takes the current price only within this;
 * otherwise that price stays missing.
 */
export const SNAPSHOT_TOLERANCE_MS = 15_000;

/** Past this after arrival, nothing is left to take for a signal. */
export const FOLLOW_MS = HORIZON_MS['30m'] + SNAPSHOT_TOLERANCE_MS;

export interface SnapshotsDeps {
  repo: Pick<ScorecardRepo, 'record' | 'recordedKeys'>;
  /** The market service: its kind and one symbol's current price. */
  market: { readonly kind: MarketSourceKind; price(symbol: string): Promise<{ price: number }> };
  clock: Clock;
  log: { warn(obj: object, msg: string): void };
}

/** What a recorded price copies from its signal. */
type Facts = Omit<ScoreRow, 'asset' | 'horizonS' | 'price' | 'dueAt' | 'takenAt' | 'priceSource'>;

function factsOf(s: Signal): Facts | null {
  if (s.analysis.status !== 'completed' || s.assets.length === 0) return null;
  return {
    signalId: Number(s.id),
    receivedAt: new Date(s.received_at),
    source: s.source,
    sourceName: s.metadata.source_name,
    sentiment: s.analysis.nlp.sentiment,
    impact: s.analysis.impact_score,
    // What the calibration learns from: the analyzer's own score, the event, the primary asset.
    impactRaw: s.analysis.impact_raw ?? s.analysis.impact_score,
    eventType: s.event_type,
    primaryAsset: s.asset ?? s.assets[0] ?? null,
  };
}

const keyOf = (id: number, asset: string, horizonS: number) => `${id}|${asset}|${horizonS}`;

/** How long prices at arrival wait to be written: well past a headline's way to its orders. */
const ARRIVALS_AFTER_MS = 1_000;

/**
 * Takes the scorecard's prices: each asset's price at arrival (the signal's own `initial_prices`) and
 * the market's price 1, 5 and 30 minutes after arrival, on timers of the injected clock. A price is
 * never invented: one that cannot be read within `SNAPSHOT_TOLERANCE_MS` of its due time stays missing.
 * Several processes may follow the same signal; the table's unique key keeps one row per price.
 */
export class Snapshots {
  private readonly timers = new Map<string, Disposer>();
  /**
   * Signals followed, with the time after which they are forgotten and the assets whose price at
   * arrival this process recorded (so each publish of a signal does not write it again).
   */
  private readonly followed = new Map<number, { until: number; arrivals: Set<string> }>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly arrivals: ScoreRow[] = [];
  private arrivalsTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(private readonly deps: SnapshotsDeps) {}

  /** Timers waiting for a price. */
  get pending(): number {
    return this.timers.size;
  }

  /**
   * Follows a completed signal (each publish of it may be passed again: a price at arrival filled
   * later is recorded then). `recorded` names the prices already stored, when known.
   */
  follow(signal: Signal, recorded: ReadonlySet<string> = new Set()): void {
    const facts = factsOf(signal);
    if (facts === null || this.stopped) return;
    const now = this.deps.clock.now();
    this.forgetOld(now);
    const arrived = facts.receivedAt.getTime();
    if (now > arrived + FOLLOW_MS) return;
    const known = this.followed.get(facts.signalId);
    const entry = known ?? { until: arrived + FOLLOW_MS, arrivals: new Set<string>() };
    this.followed.set(facts.signalId, entry);

    const arrival: ScoreRow[] = [];
    for (const asset of signal.assets) {
      const price = signal.initial_prices[asset];
      if (price === undefined || entry.arrivals.has(asset)) continue;
      entry.arrivals.add(asset);
      if (recorded.has(keyOf(facts.signalId, asset, 0))) continue;
      arrival.push(this.row(facts, asset, 0, price, facts.receivedAt, facts.receivedAt));
    }
    if (arrival.length > 0) this.recordArrivals(arrival);

    // The later prices are planned once, at the first sight of the signal.
    if (known !== undefined) return;
    for (const horizon of SCORE_HORIZONS) {
      const horizonS = HORIZON_MS[horizon] / 1000;
      const missing = signal.assets.filter((a) => !recorded.has(keyOf(facts.signalId, a, horizonS)));
      if (missing.length === 0) continue;
      const due = arrived + HORIZON_MS[horizon];
      if (due > now) {
        const key = `${facts.signalId}:${horizon}`;
        const cancel = this.deps.clock.setTimer(() => {
          this.timers.delete(key);
          this.take(facts, missing, horizon, due);
        }, due - now);
        this.timers.set(key, cancel);
      } else {
        this.take(facts, missing, horizon, due);
      }
    }
  }

  /**
   * At start: follows the signals received within the last 30 minutes (and the tolerance), skipping the
   * prices already stored by this process before or by another one. Answers how many were followed.
   */
  async catchUp(signals: readonly Signal[]): Promise<number> {
    const live = signals.filter((s) => factsOf(s) !== null);
    const recorded = await this.deps.repo.recordedKeys(live.map((s) => Number(s.id)));
    for (const s of live) this.follow(s, recorded);
    return live.length;
  }

  /** Follows signals again after a `stop` (this process took the job back). */
  resume(): void {
    this.stopped = false;
  }

  /** Cancels every timer and resolves once the prices being written are stored. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await this.drain();
  }

  /** Resolves once every price under way is stored (tests, shutdown). */
  async drain(): Promise<void> {
    this.flushArrivals();
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  private take(facts: Facts, assets: readonly string[], horizon: ScoreHorizon, due: number): void {
    const now = this.deps.clock.now();
    if (Math.abs(now - due) > SNAPSHOT_TOLERANCE_MS) return;
    const takenAt = new Date(now);
    const horizonS = HORIZON_MS[horizon] / 1000;
    this.track(
      Promise.all(
        assets.map(async (asset): Promise<ScoreRow | null> => {
          const symbol = contractSymbolOf(asset);
          if (symbol === undefined) return null;
          try {
            const { price } = await this.deps.market.price(symbol);
            return this.row(facts, asset, horizonS, price, new Date(due), takenAt);
          } catch {
            return null; // No price now: this one stays missing.
          }
        }),
      ).then((rows) => this.deps.repo.record(rows.filter((r) => r !== null))),
    );
  }

  private row(
    facts: Facts,
    asset: string,
    horizonS: number,
    price: number,
    dueAt: Date,
    takenAt: Date,
  ): ScoreRow {
    return { ...facts, asset, horizonS, price, dueAt, takenAt, priceSource: this.deps.market.kind };
  }

  private forgetOld(now: number): void {
    for (const [id, entry] of this.followed) if (entry.until < now) this.followed.delete(id);
  }

  /**
   * Prices at arrival are written a little later, together: a headline's rule decisions and orders go
   * to the database first, and a burst of headlines makes one statement. The prices are those at
   * arrival all the same, and a process that stops before writing them writes them at `stop`; one
   * that dies has them again from the stored signals when it catches up.
   */
  private recordArrivals(rows: readonly ScoreRow[]): void {
    this.arrivals.push(...rows);
    if (this.arrivalsTimer !== null) return;
    this.arrivalsTimer = setTimeout(() => this.flushArrivals(), ARRIVALS_AFTER_MS);
    this.arrivalsTimer.unref();
  }

  private flushArrivals(): void {
    if (this.arrivalsTimer !== null) clearTimeout(this.arrivalsTimer);
    this.arrivalsTimer = null;
    const rows = this.arrivals.splice(0);
    if (rows.length > 0) this.track(this.deps.repo.record(rows));
  }

  private track(p: Promise<unknown>): void {
    const done = p.catch((err: unknown) => this.deps.log.warn({ err }, 'scorecard price not recorded'));
    this.work.add(done);
    void done.finally(() => this.work.delete(done));
  }
}
