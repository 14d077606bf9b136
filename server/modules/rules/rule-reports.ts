import type { BacktestResult, GapReport, PromotionReport, RiskSettings } from '../../../src/contracts/rules';
import type { OrderPreview, OrderVenue } from '../../../src/contracts/trading';
import type { DecisionRow } from './rules.types';

/** Basis points by which `paid` is worse than `reference` for a position of `side` (positive: worse). */
export function slippageBps(side: 'long' | 'short', paid: number, reference: number): number {
  return ((paid - reference) / reference) * 10_000 * (side === 'long' ? 1 : -1);
}

const mean = (xs: number[]): number | null =>
  xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;

/** The mean to four decimals (slippage in %). */
const mean4 = (xs: number[]): number =>
  Math.round((xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1)) * 10_000) / 10_000;

function percentile(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null;
}

/** Venue refusals that paper would not make: how much of the reality gap is the venue saying no. */
const VENUE_REFUSALS = new Set(['exchange', 'max_order', 'budget']);

/**
 * The reality gap of one rule's decisions on a key: how each live fill compares with its shadow paper
 * twin and with the price when the news arrived, what it paid in fees, how much of the asked amount
 * filled, how long it took, and what the venue (or the key's own limits) refused that paper would take.
 */
export function gapReport(ruleId: string, decisions: readonly DecisionRow[]): GapReport {
  const onKeys = decisions.filter((d) => d.accountMode !== 'paper');
  const fired = onKeys.filter((d) => d.outcome === 'fired' && d.price !== null);
  const vsTwin: number[] = [];
  const vsArrival: number[] = [];
  const latencies: number[] = [];
  let fees = 0;
  let twinFees = 0;
  let executed = 0;
  let asked = 0;
  for (const d of fired) {
    const price = Number(d.price);
    if (d.twinPrice !== null) vsTwin.push(slippageBps(d.side, price, Number(d.twinPrice)));
    if (d.arrivalPrice !== null) vsArrival.push(slippageBps(d.side, price, Number(d.arrivalPrice)));
    if (d.latencyMs !== null) latencies.push(d.latencyMs);
    fees += Number(d.fee ?? 0);
    twinFees += Number(d.twinFee ?? 0);
    executed += Number(d.notional ?? 0);
    asked += Number(d.amountUsd);
  }
  const guarded = fired.filter((d) => d.slippageEstimatedPct !== null && d.slippageActualPct !== null);
  const refused = onKeys.filter(
    (d) =>
      d.outcome === 'skipped' &&
      d.reason !== null &&
      VENUE_REFUSALS.has(d.reason) &&
      d.twinPrice !== null &&
      d.twinRefused === null,
  );
  return {
    rule_id: ruleId,
    decisions: onKeys.length,
    fired: fired.length,
    slippage_vs_twin_bps: mean(vsTwin),
    slippage_vs_arrival_bps: mean(vsArrival),
    fees_usd: Math.round(fees * 100) / 100,
    twin_fees_usd: Math.round(twinFees * 100) / 100,
    fill_ratio: asked === 0 ? null : Math.round((executed / asked) * 1000) / 1000,
    latency_p50_ms: percentile(latencies, 0.5),
    latency_p95_ms: percentile(latencies, 0.95),
    slippage_guard:
      guarded.length === 0
        ? null
        : {
            fills: guarded.length,
            estimated_pct: mean4(guarded.map((d) => Number(d.slippageEstimatedPct))),
            actual_pct: mean4(guarded.map((d) => Number(d.slippageActualPct))),
          },
    refused_live_not_paper: refused.map((d) => ({
      decision_id: String(d.id),
      signal_id: String(d.signalId),
      detail: d.detail ?? d.reason ?? '',
    })),
  };
}

/** Share of `fired` whose asset moved the decision's way by `horizonS` after the news; null with none scored. */
function hitRate(
  fired: readonly DecisionRow[],
  prices: ReadonlyMap<string, number>,
  horizonS: number,
): number | null {
  let scored = 0;
  let hits = 0;
  for (const d of fired) {
    const at = prices.get(`${d.signalId}|${d.asset}|0`);
    const later = prices.get(`${d.signalId}|${d.asset}|${horizonS}`);
    if (at === undefined || later === undefined) continue;
    scored += 1;
    if ((later - at) * (d.side === 'long' ? 1 : -1) > 0) hits += 1;
  }
  return scored === 0 ? null : Math.round((hits / scored) * 1000) / 1000;
}

/** What a user reads before a rule goes to a key: its paper record, its backtest and the venue. */
export function promotionReport(o: {
  ruleId: string;
  account: string;
  venue: OrderVenue;
  decisions: readonly DecisionRow[];
  prices: ReadonlyMap<string, number>;
  backtest: BacktestResult;
  preview: OrderPreview | { refused: string };
  risk: RiskSettings;
}): PromotionReport {
  const paper = o.decisions.filter((d) => d.accountMode === 'paper');
  const fired = paper.filter((d) => d.outcome === 'fired');
  const skipped: Record<string, number> = {};
  for (const d of paper) {
    if (d.outcome === 'skipped') skipped[d.reason ?? 'other'] = (skipped[d.reason ?? 'other'] ?? 0) + 1;
  }
  const closed = fired.filter((d) => d.exitPnl !== null);
  const pnl = closed.reduce((sum, d) => sum + Number(d.exitPnl) - Number(d.fee ?? 0), 0);
  const p = o.preview;
  return {
    rule_id: o.ruleId,
    account: o.account,
    mode: o.venue.mode,
    key_hint: o.venue.keyHint,
    paper: {
      fired: fired.length,
      skipped,
      pnl_usd: Math.round(pnl * 100) / 100,
      closed: closed.length,
      hit_rate_5m: hitRate(fired, o.prices, 300),
      hit_rate_30m: hitRate(fired, o.prices, 1800),
    },
    backtest: {
      days: o.backtest.days,
      ...(o.backtest.covers === undefined ? {} : { covers: o.backtest.covers }),
      trades: o.backtest.trades.length,
      win_rate: o.backtest.win_rate,
      pnl_usd: o.backtest.pnl_usd,
      max_drawdown_usd: o.backtest.max_drawdown_usd,
    },
    venue:
      'refused' in p
        ? { symbol: null, fee_rate: null, min_notional: null, order: p.refused }
        : {
            symbol: p.symbol,
            fee_rate: p.notional > 0 ? Math.round((p.fee / p.notional) * 1e6) / 1e6 : null,
            min_notional: p.minNotional,
            order:
              `${p.quantity} ${p.symbol.split('/')[0] ?? ''} ≈ ${p.notional.toFixed(2)} USDT at ${p.price}, ` +
              `fee ${p.fee.toFixed(4)} USDT` +
              (p.note === null ? '' : `. ${p.note}`),
          },
    limits: {
      live_max_order_usd: o.risk.live_max_order_usd,
      live_daily_budget_usd: o.risk.live_daily_budget_usd,
    },
  };
}
