import { useSignals } from '@preact/signals-react/runtime';
import { useEffect } from 'react';
import { useServices } from '../app/AppContext';
import { OPEN_ORDER_COLUMNS, OPEN_ORDERS_TEXT, openOrderCells } from '../services/trading/openOrders';
import { AccountBadge } from './AccountBadge';
import { NoRows, TableHead } from './TradingTable';
import './trading.css';

const COLUMNS = [...OPEN_ORDER_COLUMNS.slice(1), 'ACTIONS'];
const NUMERIC = new Set(['PRICE', 'QTY', 'FILLED', 'AGE']);

/**
 * The limit orders resting on the account: symbol, side, price, quantity, filled, time in force and age,
 * live from the positions socket, with Cancel per row and Cancel all.
 */
export function OpenOrdersTab() {
  useSignals();
  const { stores, api, clock } = useServices();
  const store = stores.openOrders;
  const loggedIn = stores.session.isLoggedIn.value;
  useEffect(() => {
    // Pushed by the socket once it is live; asked once here so the tab never opens on a stale list.
    if (loggedIn) void store.refresh(api.trading);
  }, [loggedIn, store, api.trading]);
  if (!loggedIn) {
    return (
      <div className="pane-empty" data-testid="open-orders">
        Log in to view open orders.
      </div>
    );
  }
  const orders = store.orders.value;
  const load = store.load.value;
  const cancelling = store.cancelling.value;
  const problem = store.problem.value;
  // Re-rendered on the positions' 10 s tick, so that the ages move.
  const now = Math.max(stores.positions.now.value, clock.now());
  return (
    <div className="positions" data-testid="open-orders">
      <div className="positions-toolbar">
        <AccountBadge />
        {load.status === 'error' ? (
          <span className="positions-error" role="alert">
            {load.message}
          </span>
        ) : problem === null ? null : (
          <span className="positions-error" role="alert">
            {problem}
          </span>
        )}
        <span className="toolbar-spacer" />
        <button type="button" className="button small" onClick={() => void store.refresh(api.trading)}>
          Refresh
        </button>
        <button
          type="button"
          className="button small danger"
          disabled={orders.length === 0 || cancelling.has('*')}
          title={orders.length === 0 ? OPEN_ORDERS_TEXT.none : undefined}
          onClick={() => void store.cancelAll(api.trading)}
        >
          Cancel all
        </button>
      </div>
      {orders.length === 0 ? (
        <NoRows status={load.status} none={OPEN_ORDERS_TEXT.none} />
      ) : (
        <table className="positions-table open-orders-table">
          <TableHead columns={COLUMNS} />
          <tbody>
            {orders.map((order) => {
              const cells = openOrderCells(order, now).slice(1);
              return (
                <tr key={order.id} data-testid="open-order-row" data-symbol={order.symbol}>
                  {cells.map((cell, i) => {
                    const column = COLUMNS[i] ?? '';
                    const side =
                      column === 'SIDE' ? (order.side === 'buy' ? ' side long' : ' side short') : '';
                    return (
                      <td
                        key={column}
                        className={`${NUMERIC.has(column) ? 'num' : ''}${side}`}
                        data-label={column}
                      >
                        {cell}
                      </td>
                    );
                  })}
                  <td className="actions" data-label="ACTIONS">
                    <button
                      type="button"
                      className="button small"
                      disabled={cancelling.has(order.id) || cancelling.has('*')}
                      aria-label={`Cancel ${order.side} ${order.symbol} at ${cells[2] ?? ''}`}
                      onClick={() => void store.cancel(api.trading, order.id)}
                    >
                      Cancel
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
