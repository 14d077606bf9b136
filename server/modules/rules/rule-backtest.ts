import type { Candle, Interval } from '../../../src/contracts/market';
import type { BacktestResult, BacktestTrade, Rule } from '../../../src/contracts/rules';
import type { Signal } from '../../../src/contracts/signals';
import { findTicker } from '../../../src/contracts/symbols';
import { keywordTexts } from '../../../src/contracts/keywords';
import { RuleIndex, type IndexedRule } from './rule-index';

/** The paper exchange's costs: 0.05 % taker fee each way and 2 bps of slippage against the trader. */
export const BACKTEST_COSTS = { takerFeeRate: 0.0005, slippageBps: 2 } as const;

export interface BacktestInput {
  rule: Rule;
  /** How far back the trader asked for; none: all the news stored. */
  days?: number;
  holdMinutes: number;
  /** The risk envelope's cooldown per asset: a match this soon after a trade on its asset is left out. */
  cooldownMinutes?: number;
  now: number;
  signals: readonly Signal[];
  /** When the stored history begins (null: nothing stored). */
  since: Date | null;
  /** The last `limit` candles of a symbol (at most 1,000), up to now. */
  candles(symbol: string, interval: Interval, limit: number): Promise<Candle[]>;
  priceSource: string;
}

const STEPS: readonly [Interval, number][] = [
  ['1m', 60_000],
  ['5m', 300_000],
  ['15m', 900_000],
  ['1h', 3_600_000],
  ['4h', 14_400_000],
];

/** The finest candle interval whose 1,000 candles cover the period. */
export function intervalFor(days: number): [Interval, number] {
  const span = days * 86_400_000;
  return STEPS.find(([, ms]) => ms * 1000 >= span) ?? (STEPS[STEPS.length - 1] as [Interval, number]);
}

/**
 * Replays the stored, analysed signals of the period through one rule: each match enters at the open of
 * the candle after the signal arrived (the trade follows the news, it does not precede it), and leaves at
 * the take profit or stop loss (the stop first when one candle reaches both) or after the holding time,
 * with the paper exchange's fees and slippage.
 */
export async function backtest(input: BacktestInput): Promise<BacktestResult> {
  const { rule, now } = input;
  const hold = (rule.action.exit?.max_hold_minutes ?? input.holdMinutes) * 60_000;
  const asked = input.days === undefined ? null : input.days * DAY_MS;
  // The period replayed: what was asked for, or all that is stored, never before the first stored news.
  const stored = input.since === null ? 0 : Math.max(0, now - input.since.getTime());
  const span = asked === null ? stored : Math.min(asked, stored);
  const [interval, step] = intervalFor(Math.max(span, hold) / DAY_MS);
  const limit = Math.min(1000, Math.ceil(span / step) + Math.ceil(hold / step) + 2);
  const replay = await replaySignals(input, interval, limit, hold, now - span);
  const { trades, openAtEnd, cooledDown } = replay;

  let equity = 0;
  let peak = 0;
  let drawdown = 0;
  const curve = [0];
  for (const t of trades) {
    equity += t.pnl_usd;
    peak = Math.max(peak, equity);
    drawdown = Math.max(drawdown, peak - equity);
    curve.push(round(equity));
  }
  const wins = trades.filter((t) => t.pnl_usd > 0).length;
  const covers = spanWords(span);
  const notes: string[] = [];
  if (input.since === null) notes.push('No news is stored here yet: there was nothing to replay.');
  else if (asked === null || stored < asked)
    notes.push(
      `The news stored here covers ${covers}; the backtest ran on ${asked === null ? 'all of it' : 'those'}.`,
    );
  if (cooledDown > 0) {
    notes.push(
      `${cooledDown} match${cooledDown === 1 ? '' : 'es'} within your ${input.cooldownMinutes ?? 0} min cooldown per asset ${cooledDown === 1 ? 'was' : 'were'} left out, as the rules would.`,
    );
  }
  if (openAtEnd > 0)
    notes.push(`${openAtEnd} match${openAtEnd === 1 ? ' is' : 'es are'} too recent to have closed.`);
  if (trades.length < 20) notes.push('Fewer than 20 trades: too few to judge the rule by.');
  return {
    rule_id: rule.id,
    rule_name: rule.ruleName,
    days: round(span / DAY_MS),
    covers,
    hold_minutes: hold / 60_000,
    cooldown_minutes: input.cooldownMinutes ?? 0,
    cooldown_skipped: cooledDown,
    signals_seen: replay.seen,
    history_days: round(stored / DAY_MS),
    trades,
    win_rate: trades.length === 0 ? null : round(wins / trades.length),
    pnl_usd: round(equity),
    max_drawdown_usd: round(drawdown),
    equity: curve,
    note: notes.length === 0 ? null : notes.join(' '),
    price_source: `${input.priceSource}, ${interval} candles`,
  };
}

const DAY_MS = 86_400_000;

/** "2 hours", "45 minutes", "3 days": how long a period is, in a trader's words (never "0.0"). */
export function spanWords(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms < 60_000) return 'less than a minute';
  if (ms < 59.5 * 60_000) return plural(Math.round(ms / 60_000), 'minute');
  if (ms < 2 * DAY_MS) return plural(Math.round(ms / 3_600_000), 'hour');
  return plural(Math.round(ms / DAY_MS), 'day');
}

/**
 * The matches of the period through the rule, one trade each, the cooldown per asset held as the risk
 * envelope holds it (from each trade's news, a match still open at the end included).
 */
async function replaySignals(
  input: BacktestInput,
  interval: Interval,
  limit: number,
  hold: number,
  from: number,
) {
  const { rule } = input;
  const index = new RuleIndex([indexedOf(rule)]);
  const cooldown = (input.cooldownMinutes ?? 0) * 60_000;
  const series = new Map<string, Candle[]>();
  const lastOn = new Map<string, number>();
  const trades: BacktestTrade[] = [];
  let openAtEnd = 0;
  let cooledDown = 0;
  let seen = 0;
  for (const signal of input.signals) {
    const at = Date.parse(signal.received_at);
    if (signal.analysis.status !== 'completed' || at < from) continue;
    seen += 1;
    const [m] = index.match({
      assets: signal.assets,
      sentiment: signal.analysis.nlp.sentiment,
      impact: signal.analysis.impact_score,
      texts: keywordTexts(signal),
    });
    const info = m === undefined ? undefined : findTicker(m.asset);
    if (m === undefined || info === undefined) continue;
    const last = lastOn.get(m.asset);
    if (last !== undefined && at - last < cooldown) {
      cooledDown += 1;
      continue;
    }
    let candles = series.get(info.symbol);
    if (candles === undefined) {
      candles = await input.candles(info.symbol, interval, limit);
      series.set(info.symbol, candles);
    }
    const trade = simulate(rule, candles, at, hold, signal.id, m.asset);
    if (trade === null) continue;
    lastOn.set(m.asset, at);
    if (trade === 'open') openAtEnd += 1;
    else trades.push(trade);
  }
  return { trades, openAtEnd, cooledDown, seen };
}

function indexedOf(rule: Rule): IndexedRule {
  return {
    id: rule.id,
    userId: 'backtest',
    asset: rule.conditions.asset ?? null,
    sentiment: rule.conditions.sentiment ?? null,
    minImpact: rule.conditions.min_impact ?? null,
    maxImpact: rule.conditions.max_impact ?? null,
    include: rule.conditions.include ?? null,
    exclude: rule.conditions.exclude ?? null,
    createdAt: new Date(0),
  };
}

function simulate(
  rule: Rule,
  candles: readonly Candle[],
  at: number,
  hold: number,
  signalId: string,
  asset: string,
): BacktestTrade | 'open' | null {
  const i = candles.findIndex((c) => c.time > at);
  const first = candles[i];
  if (i < 0 || first === undefined) return candles.length > 0 ? 'open' : null;
  const long = rule.action.side === 'long';
  const slip = BACKTEST_COSTS.slippageBps / 10_000;
  const entry = first.open * (long ? 1 + slip : 1 - slip);
  const tp = rule.action.exit?.take_profit_pct;
  const sl = rule.action.exit?.stop_loss_pct;
  const until = first.time + hold;
  let exit: number | null = null;
  let reason: BacktestTrade['exit_reason'] = 'hold';
  for (let j = i; j < candles.length; j++) {
    const c = candles[j] as Candle;
    const stop = sl === undefined ? null : entry * (long ? 1 - sl / 100 : 1 + sl / 100);
    const target = tp === undefined ? null : entry * (long ? 1 + tp / 100 : 1 - tp / 100);
    if (stop !== null && (long ? c.low <= stop : c.high >= stop)) {
      [exit, reason] = [stop, 'stop_loss'];
      break;
    }
    if (target !== null && (long ? c.high >= target : c.low <= target)) {
      [exit, reason] = [target, 'take_profit'];
      break;
    }
    if (c.time >= until) {
      exit = c.open;
      break;
    }
  }
  if (exit === null) return 'open';
  const out = exit * (long ? 1 - slip : 1 + slip);
  const qty = rule.action.amount_usd / entry;
  const gross = (out - entry) * qty * (long ? 1 : -1);
  const fees = (entry + out) * qty * BACKTEST_COSTS.takerFeeRate;
  return {
    signal_id: signalId,
    at: new Date(at).toISOString(),
    asset,
    side: rule.action.side,
    entry: round(entry, 6),
    exit: round(out, 6),
    exit_reason: reason,
    pnl_usd: round(gross - fees),
  };
}

function round(v: number, places = 2): number {
  const f = 10 ** places;
  return Math.round(v * f) / f;
}
