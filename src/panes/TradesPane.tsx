import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { CLOSED_COLUMNS, TRADE_COLUMNS, TRADES_TEXT } from '../services/trading/trades';
import { NoRows, TableHead } from './TradingTable';
import './trading.css';

/** Each table's left-aligned columns (the rest are numbers), its side, PnL and placed-by columns. */
const LAYOUT = {
  all: { text: new Set([0, 1, 2, 7, 8]), side: 2, pnl: 5, by: 8 },
  closed: { text: new Set([0, 1, 2, 8, 9, 10]), side: 2, pnl: 6, by: 10 },
} as const;

/** `side long`, `pnl gain`, `num`…: the classes of cell `i` of a row whose position is `long`. */
function cellClass(view: 'all' | 'closed', i: number, long: boolean, tone: string): string {
  const layout = LAYOUT[view];
  return [
    layout.text.has(i) ? 'text' : 'num',
    i === 1 ? 'symbol' : '',
    i === layout.side ? `side ${long ? 'long' : 'short'}` : '',
    i === layout.pnl ? `pnl ${tone}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The Trades tab: every fill the server answered for the user, newest first, older pages on demand; the
 * Closed tab: the part of a position each fill closed (entry, exit, PnL, fee, why), from the server.
 */
export function TradesPane({ view = 'all' }: { view?: 'all' | 'closed' }) {
  useSignals();
  const { stores, trades } = useServices();
  const [csvError, setCsvError] = useState<string | null>(null);
  if (!stores.session.isLoggedIn.value) {
    return (
      <div className="pane-empty" data-testid="trades">
        {TRADES_TEXT.loginToView}
      </div>
    );
  }
  const closed = view === 'closed';
  const rows = closed ? trades.closedRows.value : trades.rows.value;
  const columns: readonly string[] = closed ? CLOSED_COLUMNS : TRADE_COLUMNS;
  const load = closed ? trades.closedLoad.value : trades.load.value;
  const by = LAYOUT[view].by;
  const download = async (): Promise<void> => {
    const file = await trades.csv();
    if (!file.ok) {
      setCsvError(file.message);
      return;
    }
    setCsvError(null);
    const url = URL.createObjectURL(file.value);
    const link = document.createElement('a');
    link.href = url;
    link.download = 'trades.csv';
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div className="positions" data-testid={closed ? 'closed-positions' : 'trades'}>
      <div className="positions-toolbar">
        {load.status === 'error' || csvError !== null ? (
          <span className="positions-error" role="alert">
            {csvError ?? (load.status === 'error' ? load.message : '')}
          </span>
        ) : null}
        <span className="toolbar-spacer" />
        <button type="button" className="button small" onClick={() => void download()}>
          Download CSV
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => void (closed ? trades.reloadClosed() : trades.reload())}
        >
          Refresh
        </button>
      </div>
      {rows.length === 0 ? (
        <NoRows status={load.status} none={closed ? TRADES_TEXT.noneClosed : TRADES_TEXT.none} />
      ) : (
        <table className="positions-table trades-table">
          <TableHead columns={columns} />
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-testid={closed ? 'closed-row' : 'trade-row'}>
                {row.cells.map((cell, i) => (
                  <td
                    key={columns[i]}
                    data-label={columns[i]}
                    title={i === by && row.title !== null ? row.title : undefined}
                    className={cellClass(view, i, row.side === 'LONG' || row.side === 'BUY', row.pnlTone)}
                  >
                    {cell}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!closed && trades.hasMore.value ? (
        <div className="trades-more">
          <button
            type="button"
            className="button small"
            disabled={load.status === 'loading'}
            onClick={() => void trades.more()}
          >
            Older trades
          </button>
        </div>
      ) : null}
    </div>
  );
}
