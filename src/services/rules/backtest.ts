import type { BacktestResult } from '../../contracts/rules';

/** "2 hours" from the answer; "30 days" from one that does not say it in words. */
export function backtestPeriod(r: BacktestResult): string {
  return r.covers ?? `${r.days} days`;
}

/** `SOL good news: 4 trades over 2 hours (30 min hold, …): win rate …`: the figures, then the trades. */
export function backtestSummary(r: BacktestResult): string {
  const who = r.rule_name === undefined ? '' : `${r.rule_name}: `;
  return (
    `${who}${r.trades.length} trade${r.trades.length === 1 ? '' : 's'} over ${backtestPeriod(r)} ` +
    `(${r.hold_minutes} min hold, ${r.price_source}): ` +
    `win rate ${r.win_rate === null ? '—' : `${Math.round(r.win_rate * 100)}%`}, ` +
    `PnL ${r.pnl_usd.toFixed(2)} USDT, max drawdown ${r.max_drawdown_usd.toFixed(2)} USDT.`
  );
}
