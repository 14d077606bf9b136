import type { BacktestResult } from '../../contracts/rules';
import { info, muted, type OutputLine } from '../../services/terminal/output';
import { backtestSummary } from '../../services/rules/backtest';
import { pnlStyle, table } from '../../services/terminal/table';

export function backtestLines(r: BacktestResult): OutputLine[] {
  const lines: OutputLine[] = [info(backtestSummary(r))];
  if (r.trades.length > 0) {
    lines.push(
      ...table(
        [
          { header: 'TIME' },
          { header: 'ASSET' },
          { header: 'ENTRY', align: 'right' },
          { header: 'EXIT', align: 'right' },
          { header: 'HOW' },
          { header: 'PNL', align: 'right' },
        ],
        r.trades
          .slice(-20)
          .map((t) => [
            t.at.slice(0, 16).replace('T', ' '),
            t.asset,
            String(t.entry),
            String(t.exit),
            t.exit_reason.replace('_', ' '),
            { text: t.pnl_usd.toFixed(2), style: pnlStyle(t.pnl_usd) },
          ]),
      ),
    );
  }
  if (r.note !== null) lines.push(muted(r.note));
  return lines;
}
