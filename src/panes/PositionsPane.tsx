import { useSignals } from '@preact/signals-react/runtime';
import { Fragment, useRef } from 'react';
import { useServices } from '../app/AppContext';
import { TRADING_TEXT } from '../services/trading/messages';
import { POSITION_COLUMNS, positionRow } from '../services/trading/positionsView';
import { fieldsOf } from '../services/trading/protectionEditor';
import { protectionView } from '../services/trading/protectionView';
import { verbOfKey } from '../services/trading/positionVerbs';
import { AccountBadge } from './AccountBadge';
import { ProtectionCell, ProtectionForm } from './ProtectionCell';
import { NoRows, TableHead } from './TradingTable';
import './trading.css';

const COLUMNS = [...POSITION_COLUMNS, 'PROTECTION', 'ACTIONS'];

/**
 * docs/product.md §2 Open Positions: the table, Close per row, Close All, Refresh, "Live" and "Updated … ago".
 * Ours: each row's protection (its legs, where each rests and its state) with its edit form, Remove and
 * Break-even.
 */
export function PositionsPane() {
  useSignals();
  const { stores, positions: actions } = useServices();
  const store = stores.positions;
  const refresh = useRef<HTMLButtonElement>(null);
  // A closed position's row (and its Close button) is gone: focus stays in the pane, on Refresh.
  const keepFocus = (): void => {
    if (document.activeElement === null || document.activeElement === document.body) refresh.current?.focus();
  };
  if (!stores.session.isLoggedIn.value) {
    return (
      <div className="pane-empty" data-testid="positions">
        {TRADING_TEXT.loginToViewPositions}
      </div>
    );
  }
  const live = store.live.value;
  const load = store.load.value;
  const positions = store.positions.value;
  const rows = positions.map(positionRow);
  const closing = store.closing.value;
  const updated = store.updatedText.value;
  const account = stores.account.state.value?.account ?? 'paper';
  const byRule = stores.rules.openedByRule.value;
  const venue = stores.account.venue.value;
  const now = store.now.value;
  const editor = actions.protection;
  const editing = editor.editing.value;
  const busy = editor.busy.value;
  const rowError = editor.error.value;

  return (
    <div className="positions" data-testid="positions">
      <div className="positions-toolbar">
        <AccountBadge />
        <span className={live ? 'live-indicator live' : 'live-indicator'} data-testid="positions-live">
          <span className="dot" aria-hidden="true" />
          {live ? 'Live' : 'Polling'}
        </span>
        {updated === null ? null : (
          <span className="positions-updated" data-testid="positions-updated">
            {updated}
          </span>
        )}
        {load.status === 'error' ? (
          <span className="positions-error" role="alert">
            {load.message}
          </span>
        ) : null}
        <span className="toolbar-spacer" />
        <button type="button" className="button small" ref={refresh} onClick={() => actions.refresh()}>
          Refresh
        </button>
        <button
          type="button"
          className="button small danger"
          disabled={rows.length === 0}
          title={rows.length === 0 ? TRADING_TEXT.noPositions : undefined}
          onClick={() => void actions.closeAll()}
        >
          Close All
        </button>
      </div>
      {rows.length === 0 ? (
        <NoRows status={load.status} none={TRADING_TEXT.noPositions} />
      ) : (
        <table className="positions-table">
          <TableHead columns={COLUMNS} />
          <tbody>
            {rows.map((row, i) => {
              const rule = byRule.get(`${account} ${row.symbol} ${row.side.toLowerCase()}`);
              const protection = positions[i]?.protection;
              const error = rowError?.symbol === row.symbol ? rowError.message : null;
              return (
                <Fragment key={row.symbol}>
                  <tr
                    data-testid="position-row"
                    data-symbol={row.symbol}
                    tabIndex={0}
                    aria-label={`${row.side} ${row.cells[2]} ${row.symbol}: c close, h half, f flip`}
                    onKeyDown={(event) => {
                      const verb = event.target === event.currentTarget ? verbOfKey(event) : null;
                      if (verb === null) return;
                      event.preventDefault();
                      event.stopPropagation();
                      void actions.verb(verb, row.symbol).then(keepFocus);
                    }}
                  >
                    <td className="symbol" data-label={POSITION_COLUMNS[0]}>
                      {row.cells[0]}
                      {rule === undefined ? null : (
                        <span
                          className="auto-tag"
                          data-testid="auto-tag"
                          title={`Opened by your rule '${rule.rule_name}'`}
                          aria-label={`opened by rule ${rule.rule_name}`}
                        >
                          AUTO
                        </span>
                      )}
                    </td>
                    <td
                      className={row.side === 'LONG' ? 'side long' : 'side short'}
                      data-label={POSITION_COLUMNS[1]}
                    >
                      {row.cells[1]}
                    </td>
                    <td className="num" data-label={POSITION_COLUMNS[2]}>
                      {row.cells[2]}
                    </td>
                    <td className="num" data-label={POSITION_COLUMNS[3]}>
                      {row.cells[3]}
                    </td>
                    <td className="num mark" data-testid="mark-price" data-label={POSITION_COLUMNS[4]}>
                      {row.cells[4]}
                    </td>
                    <td className="num liq" data-label={POSITION_COLUMNS[5]}>
                      {row.cells[5]}
                    </td>
                    <td className="num" data-label={POSITION_COLUMNS[6]}>
                      {row.cells[6]}
                    </td>
                    <td
                      className={`num pnl ${row.pnlTone}`}
                      data-testid="pnl"
                      data-label={POSITION_COLUMNS[7]}
                    >
                      {row.cells[7]} <small>({row.roe})</small>
                    </td>
                    <td className="protection-column" data-label="PROTECTION">
                      {protection === undefined ? null : (
                        <ProtectionCell
                          symbol={row.symbol}
                          view={protectionView(protection, venue, now, row.symbol)}
                          busy={busy.has(row.symbol)}
                          onEdit={() => editor.open(row.symbol)}
                          onRemove={() => void editor.remove(row.symbol)}
                          onBreakEven={() => void editor.breakEven(row.symbol)}
                        />
                      )}
                      {error !== null && editing !== row.symbol ? (
                        <p className="form-error" role="alert" data-testid="protection-error">
                          {error}
                        </p>
                      ) : null}
                    </td>
                    <td data-label="ACTIONS">
                      <button
                        type="button"
                        className="button small"
                        disabled={closing.has(row.symbol)}
                        onClick={() => void actions.close(row.symbol).then(keepFocus)}
                      >
                        Close
                      </button>
                      <button
                        type="button"
                        className="button small"
                        disabled={closing.has(row.symbol)}
                        title="Close 50% (h)"
                        onClick={() => void actions.verb('half', row.symbol).then(keepFocus)}
                      >
                        50%
                      </button>
                      <button
                        type="button"
                        className="button small"
                        disabled={closing.has(row.symbol)}
                        title="Flip (f)"
                        onClick={() => void actions.verb('flip', row.symbol).then(keepFocus)}
                      >
                        Flip
                      </button>
                    </td>
                  </tr>
                  {editing === row.symbol && protection !== undefined ? (
                    <tr className="protection-form-row" data-testid="protection-form-row">
                      <td colSpan={COLUMNS.length}>
                        <ProtectionForm
                          symbol={row.symbol}
                          initial={fieldsOf(protection, now)}
                          busy={busy.has(row.symbol)}
                          error={error}
                          onSave={(fields) => void editor.save(row.symbol, fields)}
                          onCancel={() => editor.close()}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
