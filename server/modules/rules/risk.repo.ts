import { inArray, sql } from 'drizzle-orm';
import { arrayOf, Batcher } from '../../db/batch';
import type { Db } from '../../db/client';
import type { CountedDecision, FiredStats, RiskRow } from './rules.types';
import { riskSettings, ruleDecisions } from '../../db/schema/rules';

/**
 * SQL for the risk envelope: each user's row of risk settings, and the figures of the decision ledger its
 * checks read (and the engine's book of fired totals starts from). The base of the module's repo, which
 * stacks the ledger's and the rules' queries on it (see `RulesRepo`).
 */
export class RiskRepo {
  /** The risk reads of one headline's decisions, one per user, go as one. */
  private readonly stats = new Batcher<FiredStatsQuery, FiredStats>((queries) =>
    this.firedStatsMany(queries),
  );

  /** The risk rows of many users at once (one headline's decisions, their cached copies expired together). */
  private readonly riskReads = new Batcher<string, RiskRow | null>(async (userIds) => {
    const rows = await this.db
      .select()
      .from(riskSettings)
      .where(inArray(riskSettings.userId, [...new Set(userIds)]));
    const byUser = new Map(rows.map((r) => [r.userId, r]));
    return userIds.map((id) => byUser.get(id) ?? null);
  });

  constructor(protected readonly db: Db) {}

  /**
   * The users' decisions that count against their budget and cooldown, decided since `from`: what the
   * engine's book of fired totals starts from. A pending one (its order's outcome not known yet) comes
   * alone, at its amount, since it may still be settled, and so does one decided since `recent` (the
   * book may still hear of it); the older fired ones, final, come summed per user and asset, those
   * before `midnight` apart from those after it, each sum with its latest time.
   */
  async countedDecisions(
    userIds: readonly string[],
    from: Date,
    midnight: Date,
    recent: Date,
  ): Promise<CountedDecision[]> {
    if (userIds.length === 0) return [];
    const d = ruleDecisions;
    // Grouped by position: the two expressions carry parameters, which the select and the grouping
    // would each bind anew.
    const result = await this.db.execute(sql`
      select ${d.userId} as user_id,
        case when ${d.outcome} = 'pending' or ${d.decidedAt} >= ${recent.toISOString()}::timestamptz
          then ${d.id} end as id,
        ${d.asset} as asset,
        ${d.decidedAt} >= ${midnight.toISOString()}::timestamptz as today,
        max(${d.decidedAt}) as at,
        sum(coalesce(${d.notional}, ${d.amountUsd})) as cost
      from ${d}
      where ${inArray(d.userId, [...userIds])}
        and ${d.decidedAt} > ${from.toISOString()}::timestamptz
        and ${d.outcome} in ('fired', 'pending')
      group by 1, 2, 3, 4`);
    const rows = (
      result as unknown as {
        rows: {
          user_id: string;
          id: number | string | null;
          asset: string;
          at: string | Date;
          cost: string;
        }[];
      }
    ).rows;
    return rows.map((r) => ({
      userId: r.user_id,
      id: r.id === null ? null : Number(r.id),
      asset: r.asset,
      at: new Date(r.at).getTime(),
      cost: Number(r.cost),
    }));
  }

  /**
   * In one read, what the risk checks need of the user's fired automated orders: the notional since
   * `since` (the daily budget) and when one last traded `asset` (the cooldown).
   */
  async firedStats(
    userId: string,
    asset: string,
    since: Date,
    mode?: 'live',
    /** The decision being checked, and others claimed but not checked yet: their pending rows do not count. */
    except?: number | readonly number[],
  ): Promise<FiredStats> {
    const excluded = except === undefined ? [] : typeof except === 'number' ? [except] : [...except];
    return this.stats.add({ userId, asset, since, mode: mode ?? null, except: excluded });
  }

  /** Each query's figures, all in one statement (a lateral read per query). */
  private async firedStatsMany(queries: FiredStatsQuery[]): Promise<FiredStats[]> {
    // A pending decision (its order's outcome not known yet) counts at its amount until it is settled.
    const cost = sql`coalesce(d.notional, d.amount_usd)`;
    const excepted = queries.flatMap((q, i) => q.except.map((id) => [i, id] as const));
    const exceptOf = excepted.map(([i]) => i);
    const exceptIds = excepted.map(([, id]) => id);
    const indexes = queries.map((_, i) => i);
    const userIds = queries.map((q) => q.userId);
    const assets = queries.map((q) => q.asset);
    const sinces = queries.map((q) => q.since);
    const modes = queries.map((q) => q.mode);
    const result = await this.db.execute(sql`
      with q as (
        select * from unnest(
          ${arrayOf('int', indexes)}, ${arrayOf('uuid', userIds)},
          ${arrayOf('text', assets)}, ${arrayOf('timestamptz', sinces)}, ${arrayOf('text', modes)}
        ) as q(i, user_id, asset, since, mode)
      ), ex as (
        select * from unnest(${arrayOf('int', exceptOf)}, ${arrayOf('bigint', exceptIds)}) as ex(i, id)
      )
      select q.i, s.spent, s.last
      from q
      cross join lateral (
        select
          sum(${cost}) filter (where d.decided_at >= q.since) as spent,
          max(d.decided_at) filter (where d.asset = q.asset) as last
        from ${ruleDecisions} d
        where d.user_id = q.user_id
          and d.outcome in ('fired', 'pending')
          -- The cooldown looks back at most a day (its maximum), the budget to midnight UTC.
          and d.decided_at >= q.since - interval '1 day'
          and (q.mode is null or d.account_mode = q.mode)
          and not exists (select 1 from ex where ex.i = q.i and ex.id = d.id)
      ) s`);
    const rows = (
      result as unknown as { rows: { i: number; spent: string | null; last: string | Date | null }[] }
    ).rows;
    const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
    return queries.map((_, i) => {
      const row = byIndex.get(i);
      return {
        spent: Number(row?.spent ?? 0),
        lastOnAsset: row?.last ? new Date(row.last) : null,
      };
    });
  }

  async risk(userId: string): Promise<RiskRow | null> {
    return this.riskReads.add(userId);
  }

  /**
   * Inserts the user's row from `base` with `set` on top, or on conflict updates only `set`'s columns:
   * two changes of different columns at once (a limit here, the kill switch on another node) both hold.
   */
  async saveRisk(
    userId: string,
    set: Partial<Omit<RiskRow, 'userId' | 'updatedAt'>>,
    base: Omit<RiskRow, 'updatedAt'>,
  ): Promise<RiskRow> {
    const [saved] = await this.db
      .insert(riskSettings)
      .values({ ...base, ...set, userId })
      .onConflictDoUpdate({ target: riskSettings.userId, set: { ...set, updatedAt: new Date() } })
      .returning();
    if (!saved) throw new Error('risk upsert returned nothing');
    return saved;
  }

  /**
   * Turns the user's kill switch on until `resumeAt`, in one statement, unless the stored switch is on
   * until later (or with no end): then nothing is written and null comes back. Of changes racing from
   * several places, none shortens a stop without the caller knowing.
   */
  async stopUnlessSooner(
    userId: string,
    resumeAt: Date,
    base: Omit<RiskRow, 'updatedAt'>,
  ): Promise<RiskRow | null> {
    const set = { killSwitch: true, resumeAt };
    const [saved] = await this.db
      .insert(riskSettings)
      .values({ ...base, ...set, userId })
      .onConflictDoUpdate({
        target: riskSettings.userId,
        set: { ...set, updatedAt: new Date() },
        setWhere: sql`not (${riskSettings.killSwitch} and (${riskSettings.resumeAt} is null or ${riskSettings.resumeAt} > ${resumeAt.toISOString()}::timestamptz))`,
      })
      .returning();
    return saved ?? null;
  }
}

interface FiredStatsQuery {
  userId: string;
  asset: string;
  since: Date;
  mode: 'live' | null;
  except: number[];
}
