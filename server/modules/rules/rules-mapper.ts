import {
  DEFAULT_RISK,
  SKIP_REASONS,
  type Decision,
  type RiskSettings,
  type Rule,
  type SkipReason,
} from '../../../src/contracts/rules';
import type { DecisionRow, RiskRow, RuleRow } from './rules.types';

const num = (v: string | null): number | null => (v === null ? null : Number(v));
const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** A stored rule as the API shows it (docs/product.md §3): "any" conditions are left out, not null. */
export function toRule(row: RuleRow): Rule {
  const conditions: Rule['conditions'] = {};
  if (row.asset !== null) conditions.asset = row.asset;
  if (row.sentiment !== null) conditions.sentiment = row.sentiment;
  if (row.minImpact !== null) conditions.min_impact = row.minImpact;
  if (row.maxImpact !== null) conditions.max_impact = row.maxImpact;
  if (row.include !== null && row.include.length > 0) conditions.include = row.include;
  if (row.exclude !== null && row.exclude.length > 0) conditions.exclude = row.exclude;
  return {
    id: row.id,
    ruleName: row.name,
    conditions,
    action: {
      type: 'trade',
      side: row.side,
      amount_usd: Number(row.amountUsd),
      ...(row.exit !== null && Object.keys(row.exit).length > 0 ? { exit: row.exit } : {}),
      account: row.account,
    },
    isActive: row.isActive,
    mode: row.mode,
    ask_window_sec: row.askWindowSec,
    version: row.version,
    created_at: row.createdAt.toISOString(),
  };
}

const isSkipReason = (v: string | null): v is SkipReason =>
  v !== null && (SKIP_REASONS as readonly string[]).includes(v);

export function toDecision(row: DecisionRow): Decision {
  return {
    id: String(row.id),
    rule_id: row.ruleId,
    rule_name: row.ruleName,
    rule_version: row.ruleVersion,
    signal_id: String(row.signalId),
    asset: row.asset,
    symbol: row.symbol,
    side: row.side,
    amount_usd: Number(row.amountUsd),
    outcome: row.outcome,
    reason: isSkipReason(row.reason) ? row.reason : null,
    detail: row.detail,
    engine: row.engine,
    sentiment: row.sentiment,
    impact: row.impact,
    price: num(row.price),
    order_id: row.orderId,
    quantity: num(row.quantity),
    notional: num(row.notional),
    latency_ms: row.latencyMs === null ? null : Math.round(row.latencyMs * 10) / 10,
    // Closed only once the venue confirmed it; until then a note (a failed try, paused triggers) is the
    // exit's own, and the position reads open.
    exit:
      row.exitState === 'closed'
        ? row.exitNote
        : row.exitState !== null && (row.exitPlan !== null || row.exitReason !== null)
          ? 'open'
          : null,
    decided_at: row.decidedAt.toISOString(),
    account: row.account,
    account_mode: row.accountMode,
    account_venue: row.accountVenue,
    fee: num(row.fee),
    arrival_price: num(row.arrivalPrice),
    twin:
      row.twinRefused !== null
        ? { refused: row.twinRefused }
        : row.twinPrice === null
          ? null
          : { price: Number(row.twinPrice), quantity: Number(row.twinQuantity), fee: Number(row.twinFee) },
    exit_pnl: num(row.exitPnl),
    timeline: {
      published_at: iso(row.signalPublishedAt),
      received_at: iso(row.signalReceivedAt),
      analysed_at: iso(row.signalAnalysedAt),
      decided_at: row.decidedAt.toISOString(),
      sent_at: iso(row.sentAt),
      acked_at: iso(row.ackedAt),
      venue_ms: row.venueMs,
      venue_own_ms: row.venueOwnMs,
    },
    ask_expires_at: iso(row.askExpiresAt),
    answered_via: row.answeredVia,
    answered_at: iso(row.answeredAt),
    exit_state: row.exitState,
    exit_note: row.exitNote,
  };
}

export function toRiskSettings(row: RiskRow | null): RiskSettings {
  if (row === null) return DEFAULT_RISK;
  return {
    // The ceiling here; the risk service puts in the default that fits the account.
    max_order_usd: num(row.maxOrderUsd) ?? DEFAULT_RISK.max_order_usd,
    daily_budget_usd: Number(row.dailyBudgetUsd),
    max_positions: row.maxPositions,
    cooldown_minutes: row.cooldownMinutes,
    max_age_seconds: row.maxAgeSeconds,
    live_max_order_usd: num(row.liveMaxOrderUsd) ?? DEFAULT_RISK.live_max_order_usd,
    live_daily_budget_usd: num(row.liveDailyBudgetUsd) ?? DEFAULT_RISK.live_daily_budget_usd,
    max_slippage_pct: num(row.maxSlippagePct),
  };
}

const CSV_COLUMNS: (keyof Decision)[] = [
  'decided_at',
  'rule_name',
  'rule_version',
  'signal_id',
  'asset',
  'symbol',
  'side',
  'amount_usd',
  'outcome',
  'reason',
  'detail',
  'engine',
  'sentiment',
  'impact',
  'price',
  'order_id',
  'quantity',
  'notional',
  'latency_ms',
  'exit',
  'account',
  'account_mode',
  'account_venue',
  'fee',
  'arrival_price',
  'exit_pnl',
  'answered_via',
];

/** RFC 4180 quoting; a leading = + - @ is prefixed with ' so a spreadsheet never runs a cell as a formula. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (/^[=+\-@]/.test(s) && typeof v === 'string') s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function decisionsCsv(rows: Decision[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const d of rows) lines.push(CSV_COLUMNS.map((c) => cell(d[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
