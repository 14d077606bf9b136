import {
  RULE_DETAILS,
  type RiskSettings,
  type RiskState,
  type RiskUpdate,
  type SkipReason,
} from '../../../src/contracts/rules';
import { appError } from '../../plugins/errors';
import type { Clock } from '../market/clock';
import { toRiskSettings } from './rules.mapper';
import type { RiskRow, RulesRepo } from './rules.repo';

export interface RiskCheck {
  reason: SkipReason;
  detail: string;
}

/** How long a risk row read from the database is used without reading it again. */
const RISK_CACHE_MS = 5_000;

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
  /** Risk rows read recently: every order reads them, so they are kept a few seconds (and dropped on change). */
  private readonly cache = new Map<string, { row: RiskRow | null; at: number }>();

  constructor(
    private readonly repo: RulesRepo,
    private readonly clock: Clock,
    /** Told after a user's settings change here, so other processes drop their copy at once. */
    private readonly onChange: (userId: string) => void = () => undefined,
  ) {}

  /** Drops a user's cached row (their settings changed here or in another process). */
  forget(userId: string): void {
    this.cache.delete(userId);
  }

  private async save(row: Omit<RiskRow, 'updatedAt'>): Promise<RiskRow> {
    const saved = await this.repo.saveRisk(row);
    this.cache.set(row.userId, { row: saved, at: this.clock.now() });
    this.onChange(row.userId);
    return saved;
  }

  private async row(userId: string): Promise<RiskRow | null> {
    const now = this.clock.now();
    const hit = this.cache.get(userId);
    let row: RiskRow | null;
    if (hit !== undefined && now - hit.at < RISK_CACHE_MS) {
      row = hit.row;
    } else {
      row = await this.repo.risk(userId);
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(userId, { row, at: now });
    }
    // A kill switch with a resume time turns itself off once that time has passed.
    if (row?.killSwitch && row.resumeAt !== null && row.resumeAt.getTime() <= this.clock.now()) {
      return this.save({ ...withoutStamp(row), killSwitch: false, resumeAt: null });
    }
    return row;
  }

  async settings(userId: string): Promise<RiskSettings> {
    return toRiskSettings(await this.row(userId));
  }

  async state(userId: string): Promise<RiskState> {
    const row = await this.row(userId);
    const { spent } = await this.repo.firedStats(userId, '', startOfUtcDay(this.clock.now()));
    return {
      ...toRiskSettings(row),
      kill_switch: row?.killSwitch ?? false,
      resume_at: row?.resumeAt?.toISOString() ?? null,
      spent_today_usd: Math.round(spent * 100) / 100,
    };
  }

  async update(userId: string, change: RiskUpdate): Promise<RiskState> {
    const row = await this.row(userId);
    const next = { ...toRiskSettings(row), ...change };
    await this.save({
      userId,
      maxOrderUsd: String(next.max_order_usd),
      dailyBudgetUsd: String(next.daily_budget_usd),
      maxPositions: next.max_positions,
      cooldownMinutes: next.cooldown_minutes,
      maxAgeSeconds: next.max_age_seconds,
      killSwitch: row?.killSwitch ?? false,
      resumeAt: row?.resumeAt ?? null,
    });
    return this.state(userId);
  }

  /** Turns every automated order of the user off (or back on); `resumeInMinutes` turns it on again by itself. */
  async killSwitch(userId: string, on: boolean, resumeInMinutes?: number): Promise<RiskState> {
    const settings = toRiskSettings(await this.row(userId));
    await this.save({
      userId,
      maxOrderUsd: String(settings.max_order_usd),
      dailyBudgetUsd: String(settings.daily_budget_usd),
      maxPositions: settings.max_positions,
      cooldownMinutes: settings.cooldown_minutes,
      maxAgeSeconds: settings.max_age_seconds,
      killSwitch: on,
      resumeAt:
        on && resumeInMinutes !== undefined ? new Date(this.clock.now() + resumeInMinutes * 60_000) : null,
    });
    return this.state(userId);
  }

  /** The check every order passes: refused (400) above the user's maximum order size. */
  async guardOrder(userId: string, amountUsd: number): Promise<void> {
    const max = (await this.settings(userId)).max_order_usd;
    if (amountUsd > max) throw appError('BAD_REQUEST', RULE_DETAILS.maxOrder(amountUsd, max));
  }

  /**
   * The checks of an automated order, in the order a trader would ask them: why it must not trade now,
   * or null when it may. `openPositions` is read only when the cheaper checks pass.
   */
  async checkAutomated(
    userId: string,
    o: { asset: string; amountUsd: number; receivedAt: number; openPositions: () => Promise<number> },
  ): Promise<RiskCheck | null> {
    const now = this.clock.now();
    const row = await this.row(userId);
    const s = toRiskSettings(row);
    const age = now - o.receivedAt;
    if (age > s.max_age_seconds * 1000) {
      return {
        reason: 'stale',
        detail: `The signal was ${(age / 1000).toFixed(1)} s old (max ${s.max_age_seconds} s).`,
      };
    }
    if (row?.killSwitch) {
      const until = row.resumeAt === null ? '' : ` until ${row.resumeAt.toISOString()}`;
      return { reason: 'kill_switch', detail: `Automated trading is off${until}.` };
    }
    if (o.amountUsd > s.max_order_usd) {
      return { reason: 'max_order', detail: RULE_DETAILS.maxOrder(o.amountUsd, s.max_order_usd) };
    }
    const { spent, lastOnAsset: last } = await this.repo.firedStats(userId, o.asset, startOfUtcDay(now));
    if (last !== null && now - last.getTime() < s.cooldown_minutes * 60_000) {
      const wait = Math.ceil((s.cooldown_minutes * 60_000 - (now - last.getTime())) / 60_000);
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
    const open = await o.openPositions();
    if (open >= s.max_positions) {
      return {
        reason: 'max_positions',
        detail: `${open} position${open === 1 ? ' is' : 's are'} open (max ${s.max_positions}).`,
      };
    }
    return null;
  }
}

function withoutStamp(row: RiskRow): Omit<RiskRow, 'updatedAt'> {
  const { updatedAt: _stamp, ...rest } = row;
  return rest;
}
