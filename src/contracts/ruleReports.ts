import { z } from 'zod';
import { VENUES } from './venues';
import { decimal } from './numbers';
import { DecisionTimeline } from './timeline';

/**
 * What the rules engine reports back (the rule itself is in `rules.ts`, which re-exports this file):
 * the decision ledger, a rule's reality gap and promotion report, the result of `rules flatten`, and
 * the backtest.
 */

export const SKIP_REASONS = [
  'stale',
  'cooldown',
  'budget',
  'max_positions',
  'max_order',
  'kill_switch',
  'plan_limit',
  'exchange',
  'no_price',
  'live_account',
  'account_missing',
  'retracted',
  /** The signal's asset has no futures contract here (a stablecoin, FTT): a tag is shown, not traded. */
  'not_tradable',
  /** An ask rule's proposal the user rejected, or left unanswered for its window. */
  'rejected',
  'no_answer',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One row of the decision ledger: a rule whose conditions matched a signal, fired or skipped. */
export const Decision = z.object({
  id: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  rule_version: z.number(),
  signal_id: z.string(),
  asset: z.string(),
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  amount_usd: z.number(),
  outcome: z.enum(['fired', 'skipped', 'pending', 'asking']),
  reason: z.enum(SKIP_REASONS).nullable(),
  detail: z.string().nullable(),
  engine: z.string().nullable(),
  sentiment: z.string().nullable(),
  impact: z.number().nullable(),
  price: z.number().nullable(),
  order_id: z.string().nullable(),
  quantity: z.number().nullable(),
  notional: z.number().nullable(),
  latency_ms: z.number().nullable(),
  /** `open` while the position's exit is watched or being closed; once closed, how ("take profit: …; closed …"). */
  exit: z.string().nullable(),
  decided_at: z.string(),
  /** Where the order went: 'paper' or the key id, and that account's mode when it decided. */
  account: z.string(),
  account_mode: z.enum(['paper', 'demo', 'live']),
  /** That account's venue: 'paper' or the key's exchange; optional so that a copy saved before reads. */
  account_venue: z.enum(['paper', ...VENUES]).default('paper'),
  fee: z.number().nullable(),
  arrival_price: z.number().nullable(),
  /** The shadow paper twin of a decision on a key: what paper would have filled, or why it would refuse. */
  twin: z
    .object({ price: z.number(), quantity: z.number(), fee: z.number() })
    .or(z.object({ refused: z.string() }))
    .nullable(),
  exit_pnl: z.number().nullable(),
  /**
   * The receipt: the news's published, received and analysed times, then decided, sent and acknowledged.
   * The server always sends it; optional so that a copy saved before it existed still reads.
   */
  timeline: DecisionTimeline.optional(),
  /**
   * An ask rule's proposal: until when it waits (ISO), and where and when the first answer came from.
   * Null on an `auto` rule's decisions; optional so that a copy saved before ask rules still reads.
   */
  ask_expires_at: z.string().nullable().optional(),
  answered_via: z.enum(['browser', 'terminal', 'telegram', 'api']).nullable().optional(),
  answered_at: z.string().nullable().optional(),
  /**
   * The exit's lifecycle: `open`, `closing` while a close is under way, `closed` once the venue confirmed
   * it; and its latest note (while open: why its take profit and stop loss wait, or why the last close
   * failed and that it is tried again). Optional so that a copy saved before they existed still reads.
   */
  exit_state: z.enum(['open', 'closing', 'closed']).nullable().optional(),
  exit_note: z.string().nullable().optional(),
});
export type Decision = z.infer<typeof Decision>;

/** Per rule: how its live (or demo) fills differ from what paper would have done, and from the news. */
export const GapReport = z.object({
  rule_id: z.string(),
  decisions: z.number(),
  fired: z.number(),
  /** Mean slippage of the fills against their paper twins and against the price at the news's arrival, in bps (positive: worse for the trader). */
  slippage_vs_twin_bps: z.number().nullable(),
  slippage_vs_arrival_bps: z.number().nullable(),
  fees_usd: z.number(),
  twin_fees_usd: z.number(),
  /** Executed notional over requested amount, over the fired decisions. */
  fill_ratio: z.number().nullable(),
  latency_p50_ms: z.number().nullable(),
  latency_p95_ms: z.number().nullable(),
  /**
   * The slippage guard's view, over the fills that had a cap and a known fill: the mean slippage it
   * estimated from the book before sending and the mean the fills actually had, in % (positive: worse),
   * and how many fills that is. Null with none.
   */
  slippage_guard: z
    .object({ fills: z.number(), estimated_pct: z.number(), actual_pct: z.number() })
    .nullable()
    .default(null),
  /** Decisions the venue refused (minimum notional, margin, rate limit) that paper would have taken. */
  refused_live_not_paper: z.array(
    z.object({ decision_id: z.string(), signal_id: z.string(), detail: z.string() }),
  ),
});
export type GapReport = z.infer<typeof GapReport>;

/** `POST /api/rules/flatten`: positions closed, positions already closed by hand, and closes that failed. */
export const FlattenResult = z.object({ closed: z.number(), gone: z.number(), failed: z.array(z.string()) });
export type FlattenResult = z.infer<typeof FlattenResult>;

/** What a user sees before a rule goes live: its paper record, its backtest, and what the venue changes. */
export const PromotionReport = z.object({
  rule_id: z.string(),
  account: z.string(),
  mode: z.enum(['paper', 'demo', 'live']),
  key_hint: z.string().nullable(),
  paper: z.object({
    fired: z.number(),
    skipped: z.record(z.string(), z.number()),
    pnl_usd: z.number(),
    closed: z.number(),
    /** Share of fired decisions whose asset moved the rule's way 5 and 30 minutes after the news. */
    hit_rate_5m: z.number().nullable(),
    hit_rate_30m: z.number().nullable(),
  }),
  backtest: z.object({
    days: z.number(),
    /** The period replayed in words ("2 hours"): the news stored here. */
    covers: z.string().optional(),
    trades: z.number(),
    win_rate: z.number().nullable(),
    pnl_usd: z.number(),
    max_drawdown_usd: z.number(),
  }),
  venue: z.object({
    symbol: z.string().nullable(),
    fee_rate: z.number().nullable(),
    min_notional: z.number().nullable(),
    /** What the rule's amount becomes on that venue now (its lot step and minimum), or why it cannot. */
    order: z.string(),
  }),
  limits: z.object({ live_max_order_usd: z.number(), live_daily_budget_usd: z.number() }),
});
export type PromotionReport = z.infer<typeof PromotionReport>;

export const LedgerQuery = z.object({
  before: decimal(z.number().int().positive()).optional(),
  limit: decimal(z.number().int().min(1).max(500)).default(50),
  /** Up to 18 digits: always within the database's bigint. */
  signal_id: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
});
export type LedgerQuery = z.infer<typeof LedgerQuery>;

export const BacktestRequest = z.object({
  /** How far back; without it, all the news stored (the default). */
  days: z.number().int().min(1).max(365).optional(),
  hold_minutes: z.number().int().min(1).max(10_080).default(30),
});
export type BacktestRequest = z.infer<typeof BacktestRequest>;

export const BacktestTrade = z.object({
  signal_id: z.string(),
  at: z.string(),
  asset: z.string(),
  side: z.enum(['long', 'short']),
  entry: z.number(),
  exit: z.number(),
  exit_reason: z.enum(['take_profit', 'stop_loss', 'hold']),
  pnl_usd: z.number(),
});
export type BacktestTrade = z.infer<typeof BacktestTrade>;

export const BacktestResult = z.object({
  rule_id: z.string(),
  /** The rule's name, so that an answer read alone says which rule it tested. */
  rule_name: z.string().optional(),
  /** The days the replay covered: those asked for, or fewer when less news is stored. */
  days: z.number(),
  /** The same in words: "2 hours", "30 days". */
  covers: z.string().optional(),
  hold_minutes: z.number(),
  /** The cooldown per asset held (the risk envelope's), and how many matches it left out. */
  cooldown_minutes: z.number().optional(),
  cooldown_skipped: z.number().optional(),
  signals_seen: z.number(),
  history_days: z.number(),
  trades: z.array(BacktestTrade),
  win_rate: z.number().nullable(),
  pnl_usd: z.number(),
  max_drawdown_usd: z.number(),
  equity: z.array(z.number()),
  note: z.string().nullable(),
  price_source: z.string(),
});
export type BacktestResult = z.infer<typeof BacktestResult>;
