import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { CLOSED_COLUMNS, TRADE_COLUMNS, TRADES_TEXT } from '../services/trading/trades';
import { NoRows, TableHead } from './TradingTable';
import './trading.css';

/** Left-aligned columns: time, symbol, side, venue, placed by; the rest are numbers. */
const TEXT_COLUMNS = new Set([0, 1, 2, 7, 8]);

/**
 * The Trades tab: every fill the server answered for the user, newest first, older pages on demand; the
 * Closed tab: the fills among them that reduced or closed a position, with the position's side.
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
  const columns = closed ? CLOSED_COLUMNS : TRADE_COLUMNS;
  const load = trades.load.value;
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
        <button type="button" className="button small" onClick={() => void trades.reload()}>
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
                    title={i === 8 && row.title !== null ? row.title : undefined}
                    className={[
                      TEXT_COLUMNS.has(i) ? 'text' : 'num',
                      i === 1 ? 'symbol' : '',
                      i === 2
                        ? `side ${(closed ? row.side === 'SELL' : row.side === 'BUY') ? 'long' : 'short'}`
                        : '',
                      i === 5 ? `pnl ${row.pnlTone}` : '',
                    ]
                      .filter(Boolean)
                      .join(' ')}
                  >
                    {cell}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {trades.hasMore.value ? (
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
