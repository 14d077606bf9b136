import {
  DEFAULT_RISK,
  RULE_DETAILS,
  type RiskSettings,
  type RiskState,
  type RiskUpdate,
  type SkipReason,
} from '../../../src/contracts/rules';
import { formatSpan } from '../../../src/contracts/timeline';
import { appError } from '../../plugins/errors';
import type { Clock } from '../market/clock';
import { BalanceBook, defaultMaxOrder, type AccountBalanceRead, type MaxOrder } from './max-order';
import { toRiskSettings } from './rules-mapper';
import type { RiskRepo } from './risk.repo';
import type { FiredStats, RiskRow } from './rules.types';

/** A user's fired totals of the day from `since` (midnight UTC), as the ledger held them. */
export interface FiredTotals extends FiredStats {
  since: Date;
}

export interface RiskCheck {
  reason: SkipReason;
  detail: string;
}

/** What the stale guard reads of a headline: when it happened, whether its source said, and backlog. */
export interface Headline {
  /** The earlier of its receipt and its (believable) publication, ms. */
  startMs: number;
  /** Whether `startMs` is the source's publication time rather than the receipt. */
  published: boolean;
  /** From the source's first poll after start. */
  backlog: boolean;
  source: string;
}

/**
 * Why a headline is too old to trade, or null. Its age runs from its publication (a relay that forwards
 * hours-old news does not make it fresh), and nothing from a source's first poll after start trades.
 */
export function staleHeadline(h: Headline, now: number, maxAgeSeconds: number): string | null {
  const age = now - h.startMs;
  const said = `${h.published ? 'published' : 'received'} ${formatSpan(age)} ago`;
  if (h.backlog) return `${said}, waiting in ${h.source}'s first poll after start (backlog)`;
  return age > maxAgeSeconds * 1000 ? `${said} (max ${maxAgeSeconds} s)` : null;
}

/** How long a risk row read from the database is used without reading it again. */
const RISK_CACHE_MS = 5_000;
/** A row no order has read for this long is dropped by `keepFresh` rather than read again. */
const RISK_KEEP_MS = 60_000;

/** Midnight UTC of the day `now` falls in: the daily budget's reset. */
export function startOfUtcDay(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * The per-user risk envelope. The maximum order size holds for every order from every entry point (the
 * terminal, the panel, a card, the CLI, a bot, a rule); the rest (kill switch, daily budget, open
 * positions, cooldown per asset, max signal age) holds for every automated order.
 */
export class RiskService {
  /**
   * Risk rows read recently: every order reads them, so they are kept a few seconds (and dropped on
   * change). `used` is when an order last read the row: `keepFresh` re-reads only rows still in use.
   */
  private readonly cache = new Map<string, { row: RiskRow | null; at: number; used: number }>();
  /**
   * Bumped whenever a user's row is written or dropped here: a read that started before (its answer may
   * be the row before the change) is not kept.
   */
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly repo: RiskRepo,
    private readonly clock: Clock,
    /** Told after a user's settings change here, so other processes drop their copy at once. */
    private readonly onChange: (userId: string) => void = () => undefined,
    /**
     * The balance of the account an order goes to ('paper' or a key id; none: the account the user
     * chose), which the default maximum order is a share of. Without it, the default is the ceiling.
     */
    balanceOf?: (userId: string, account?: string) => Promise<AccountBalanceRead>,
  ) {
    this.balances = balanceOf === undefined ? null : new BalanceBook(balanceOf, () => clock.now());
  }

  private readonly balances: BalanceBook | null;

  /** Drops a user's cached row (their settings changed here or in another process). */
  forget(userId: string): void {
    this.bump(userId);
    this.cache.delete(userId);
    this.balances?.forget(userId);
  }

  /**
   * The maximum order that holds for an order to `account` (none: the account the user chose): the
   * user's own setting as they set it, else the default that fits the account's balance.
   */
  private async maxOrder(userId: string, row: RiskRow | null, account?: string): Promise<MaxOrder> {
    if (row?.maxOrderUsd != null) {
      return { usd: Number(row.maxOrderUsd), basis: 'your own setting', saved: true };
    }
    if (this.balances === null) {
      return { usd: DEFAULT_RISK.max_order_usd, basis: 'the default', saved: false };
    }
    const read = await this.balances.of(userId, account).catch(() => null);
    return defaultMaxOrder(read ?? { venue: account === 'paper' ? 'paper' : null, balance: null });
  }

  private bump(userId: string): void {
    // Never cleared (one number per user whose row changed): a cleared count could match a read's again.
    this.versions.set(userId, (this.versions.get(userId) ?? 0) + 1);
  }

  /** Reads a user's row and keeps it, unless it was written or dropped meanwhile. */
  private async read(userId: string, used: number): Promise<RiskRow | null> {
    const version = this.versions.get(userId) ?? 0;
    const at = this.clock.now();
    const row = await this.repo.risk(userId);
    if ((this.versions.get(userId) ?? 0) === version) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(userId, { row, at, used });
    }
    return row;
  }

  /**
   * Reads ahead, in one statement, the rows orders will need: those of `userIds` not held yet (the users
   * whose rules are active, when the engine starts), and every held row past half its age that an order
   * read in the last minute. Run off the order path (the engine's start, its periodic sweep), it keeps an
   * order from waiting for its row while no row is ever older than it was before: the same few seconds.
   */
  async keepFresh(userIds: Iterable<string> = []): Promise<void> {
    const now = this.clock.now();
    const due = new Set<string>();
    for (const userId of userIds) if (!this.cache.has(userId)) due.add(userId);
    for (const [userId, hit] of this.cache) {
      if (now - hit.used > RISK_KEEP_MS) this.cache.delete(userId);
      else if (now - hit.at >= RISK_CACHE_MS / 2) due.add(userId);
    }
    await Promise.all([...due].map((userId) => this.read(userId, this.cache.get(userId)?.used ?? now)));
  }

  /**
   * Writes only the columns given (an edit of a limit never writes the kill switch back, nor the other
   * way), on top of the defaults for a user without a row.
   */
  private async save(userId: string, set: RiskColumns): Promise<RiskRow> {
    return this.saved(userId, await this.repo.saveRisk(userId, set, defaultRow(userId)));
  }

  /** A row just written here: kept, and told to the other processes. */
  private saved(userId: string, row: RiskRow): RiskRow {
    this.bump(userId);
    const now = this.clock.now();
    this.cache.set(userId, { row, at: now, used: now });
    this.onChange(userId);
    return row;
  }

  /** The user's slippage cap for market orders sent without one (cached as the rest of the row). */
  async maxSlippagePct(userId: string): Promise<number | null> {
    const row = await this.row(userId);
    return row === null || row.maxSlippagePct === null ? null : Number(row.maxSlippagePct);
  }

  private async row(userId: string): Promise<RiskRow | null> {
    const now = this.clock.now();
    const hit = this.cache.get(userId);
    let row: RiskRow | null;
    if (hit !== undefined && now - hit.at < RISK_CACHE_MS) {
      hit.used = now;
      row = hit.row;
    } else {
      row = await this.read(userId, now);
    }
    // A kill switch with a resume time turns itself off once that time has passed.
    if (row?.killSwitch && row.resumeAt !== null && row.resumeAt.getTime() <= this.clock.now()) {
      return this.save(userId, { killSwitch: false, resumeAt: null });
    }
    return row;
  }

  /** The user's envelope, its maximum order the one that holds on `account` (none: the chosen account). */
  async settings(userId: string, account?: string): Promise<RiskSettings> {
    const row = await this.row(userId);
    return { ...toRiskSettings(row), max_order_usd: (await this.maxOrder(userId, row, account)).usd };
  }

  async state(userId: string): Promise<RiskState> {
    const row = await this.row(userId);
    const since = startOfUtcDay(this.clock.now());
    const [all, live, max] = await Promise.all([
      this.repo.firedStats(userId, '', since),
      this.repo.firedStats(userId, '', since, 'live'),
      this.maxOrder(userId, row),
    ]);
    return {
      ...toRiskSettings(row),
      max_order_usd: max.usd,
      max_order_basis: max.basis,
      max_order_saved: max.saved,
      kill_switch: row?.killSwitch ?? false,
      resume_at: row?.resumeAt?.toISOString() ?? null,
      spent_today_usd: Math.round(all.spent * 100) / 100,
      live_spent_today_usd: Math.round(live.spent * 100) / 100,
    };
  }

  async update(userId: string, change: RiskUpdate): Promise<RiskState> {
    const set: RiskColumns = {};
    if (change.max_order_usd !== undefined) set.maxOrderUsd = String(change.max_order_usd);
    if (change.daily_budget_usd !== undefined) set.dailyBudgetUsd = String(change.daily_budget_usd);
    if (change.max_positions !== undefined) set.maxPositions = change.max_positions;
    if (change.cooldown_minutes !== undefined) set.cooldownMinutes = change.cooldown_minutes;
    if (change.max_age_seconds !== undefined) set.maxAgeSeconds = change.max_age_seconds;
    if (change.live_max_order_usd !== undefined) set.liveMaxOrderUsd = String(change.live_max_order_usd);
    if (change.live_daily_budget_usd !== undefined) {
      set.liveDailyBudgetUsd = String(change.live_daily_budget_usd);
    }
    if (change.max_slippage_pct !== undefined) {
      set.maxSlippagePct = change.max_slippage_pct === null ? null : String(change.max_slippage_pct);
    }
    await this.save(userId, set);
    return this.state(userId);
  }

  /** Turns every automated order of the user off (or back on); `resumeInMinutes` turns it on again by itself. */
  async killSwitch(userId: string, on: boolean, resumeInMinutes?: number): Promise<RiskState> {
    await this.save(userId, {
      killSwitch: on,
      resumeAt:
        on && resumeInMinutes !== undefined ? new Date(this.clock.now() + resumeInMinutes * 60_000) : null,
    });
    return this.state(userId);
  }

  /**
   * Stops every automated order of the user for `resumeInMinutes`, unless the stop in place lifts later
   * (or has no end): then nothing is written and null comes back, since this would start automated
   * orders again sooner (which, like turning the switch off, needs a confirmed sign-in). Checked and
   * written in one statement, so that a stop set meanwhile elsewhere is never shortened by it.
   */
  async stopUnlessSooner(userId: string, resumeInMinutes: number): Promise<RiskState | null> {
    const resumeAt = new Date(this.clock.now() + resumeInMinutes * 60_000);
    const row = await this.repo.stopUnlessSooner(userId, resumeAt, defaultRow(userId));
    if (row === null) return null;
    this.saved(userId, row);
    return this.state(userId);
  }

  /**
   * The check every order passes: refused (400) above the user's maximum order size on `account` (the
   * order's account; none: the one the user chose).
   */
  async guardOrder(userId: string, amountUsd: number, account?: string): Promise<void> {
    const max = (await this.settings(userId, account)).max_order_usd;
    if (amountUsd > max) throw appError('BAD_REQUEST', RULE_DETAILS.maxOrder(amountUsd, max));
  }

  /**
   * The checks of an automated order, in the order a trader would ask them: why it must not trade now,
   * or null when it may. `openPositions` (the positions rules opened, not the trader's own) is read only
   * when the cheaper checks pass.
   */
  async checkAutomated(
    userId: string,
    o: {
      asset: string;
      amountUsd: number;
      receivedAt: number;
      /** The headline's age from its publication; without it, the age runs from `receivedAt`. */
      headline?: Headline;
      /** The mode of the account the order would go to: LIVE keys have limits of their own too. */
      mode?: 'paper' | 'demo' | 'live';
      /** The account it would go to ('paper' or a key id): the default maximum order fits its balance. */
      account?: string;
      /** The decision's own ledger row (pending while it is checked), left out of the totals. */
      decisionId?: number;
      /** The user's other decisions claimed but not checked yet, left out of the totals too. */
      unchecked?: readonly number[];
      openPositions: () => Promise<number>;
      /**
       * The user's fired totals from `since` (midnight UTC) as the rule engine's book holds them, the
       * decision itself and `unchecked` left out: used instead of a read of the ledger while the day
       * is the same.
       */
      firedBefore?: FiredTotals;
      /**
       * What this process knows of the user's fired totals when another process may have decided for
       * them since: the ledger is read, and neither figure is taken below this (a decision heard of on
       * the bus counts even before the ledger is read again).
       */
      firedAtLeast?: FiredTotals;
      /**
       * A confirmed proposal's window (seconds): the person answering took up to that long, so the
       * headline may be as old as the larger of it and the maximum age when the answer comes.
       */
      answeredWithinSeconds?: number;
    },
  ): Promise<RiskCheck | null> {
    const now = this.clock.now();
    const row = await this.row(userId);
    const s = toRiskSettings(row);
    const headline = o.headline ?? { startMs: o.receivedAt, published: false, backlog: false, source: '' };
    const maxAge = Math.max(s.max_age_seconds, o.answeredWithinSeconds ?? 0);
    const stale = staleHeadline(headline, now, maxAge);
    if (stale !== null) return { reason: 'stale', detail: stale };
    if (row?.killSwitch) {
      const until = row.resumeAt === null ? '' : ` until ${row.resumeAt.toISOString()}`;
      return { reason: 'kill_switch', detail: `Automated trading is off${until}.` };
    }
    const maxOrder = (await this.maxOrder(userId, row, o.account)).usd;
    if (o.amountUsd > maxOrder) {
      return { reason: 'max_order', detail: RULE_DETAILS.maxOrder(o.amountUsd, maxOrder) };
    }
    const live = o.mode === 'live';
    if (live && o.amountUsd > s.live_max_order_usd) {
      return {
        reason: 'max_order',
        detail: `The order of ${o.amountUsd} USDT is above your live maximum order of ${s.live_max_order_usd} USDT (risk settings).`,
      };
    }
    const except = [...(o.decisionId === undefined ? [] : [o.decisionId]), ...(o.unchecked ?? [])];
    const today = startOfUtcDay(now);
    const sameDay = (t: FiredTotals | undefined) => (t?.since.getTime() === today.getTime() ? t : undefined);
    const { spent, lastOnAsset: last } =
      sameDay(o.firedBefore) ??
      atLeast(await this.repo.firedStats(userId, o.asset, today, undefined, except), sameDay(o.firedAtLeast));
    // No cooldown is none at all: a decision taken beside this one may carry a later time than `now`.
    const since = last === null ? null : Math.max(0, now - last.getTime());
    if (s.cooldown_minutes > 0 && since !== null && since < s.cooldown_minutes * 60_000) {
      const wait = Math.ceil((s.cooldown_minutes * 60_000 - since) / 60_000);
      return {
        reason: 'cooldown',
        detail: `A rule traded ${o.asset} less than ${s.cooldown_minutes} min ago (${wait} min left).`,
      };
    }
    if (spent + o.amountUsd > s.daily_budget_usd) {
      return {
        reason: 'budget',
        detail: `Today's automated orders total ${spent.toFixed(2)} USDT; ${o.amountUsd} more would pass the daily budget of ${s.daily_budget_usd} USDT.`,
      };
    }
    if (live) {
      const liveSpent = (await this.repo.firedStats(userId, o.asset, startOfUtcDay(now), 'live', except))
        .spent;
      if (liveSpent + o.amountUsd > s.live_daily_budget_usd) {
        return {
          reason: 'budget',
          detail: `Today's automated orders on live keys total ${liveSpent.toFixed(2)} USDT; ${o.amountUsd} more would pass the live daily budget of ${s.live_daily_budget_usd} USDT.`,
        };
      }
    }
    const open = await o.openPositions();
    if (open >= s.max_positions) {
      return {
        reason: 'max_positions',
        detail: RULE_DETAILS.maxPositions(open, s.max_positions),
      };
    }
    return null;
  }
}

/** The ledger's figures, neither below what this process knows of. */
function atLeast(ledger: FiredStats, known: FiredStats | undefined): FiredStats {
  if (known === undefined) return ledger;
  const times = [ledger.lastOnAsset, known.lastOnAsset].flatMap((d) => (d === null ? [] : [d.getTime()]));
  return {
    spent: Math.max(ledger.spent, known.spent),
    lastOnAsset: times.length === 0 ? null : new Date(Math.max(...times)),
  };
}

/** Columns of a risk row that one change writes. */
export type RiskColumns = Partial<Omit<RiskRow, 'userId' | 'updatedAt'>>;

/** The row a user without one starts from: the defaults, switch off. */
function defaultRow(userId: string): Omit<RiskRow, 'updatedAt'> {
  return {
    userId,
    // No maximum order of the user's own: the default that fits the account holds.
    maxOrderUsd: null,
    dailyBudgetUsd: String(DEFAULT_RISK.daily_budget_usd),
    maxPositions: DEFAULT_RISK.max_positions,
    cooldownMinutes: DEFAULT_RISK.cooldown_minutes,
    maxAgeSeconds: DEFAULT_RISK.max_age_seconds,
    liveMaxOrderUsd: null,
    liveDailyBudgetUsd: null,
    maxSlippagePct: null,
    killSwitch: false,
    resumeAt: null,
  };
}
