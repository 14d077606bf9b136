import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { exchangeSymbol, TIME_IN_FORCE, type TimeInForce } from '../contracts/trading';
import { formatPrice } from '../services/trading/format';
import { defaultTotal, totalHint, type PanelBracket, type PanelSide } from '../services/trading/tradePanel';
import { AccountBadge } from './AccountBadge';
import './trading.css';

const NO_BRACKET: PanelBracket = { stopLoss: '', takeProfit: '' };

/**
 * docs/product.md §2 trade panel: "Total (USDT)", "Buy / Long", "Sell / Short" and the status message.
 * Ours: an optional stop loss and take profit, each a percent of the entry (`2%`) or a price; a
 * Market/Limit switch, the limit's price and its time in force (a limit order is sized at its price).
 */
export function TradePanel() {
  useSignals();
  const { tradePanel, stores } = useServices();
  // What the user typed, for the symbol it was typed on; another symbol starts at its own default.
  const [typed, setTyped] = useState<{ symbol: string; text: string } | null>(null);
  const status = tradePanel.status.value;
  const symbol = stores.ui.symbol.value;
  const total = typed?.symbol === symbol ? typed.text : String(defaultTotal(symbol));
  // A stop typed as a price belongs to its symbol: another symbol starts without one.
  const [bracketTyped, setBracket] = useState<{ symbol: string; bracket: PanelBracket } | null>(null);
  const bracket = bracketTyped?.symbol === symbol ? bracketTyped.bracket : NO_BRACKET;
  const type = (key: keyof PanelBracket, text: string): void =>
    setBracket({ symbol, bracket: { ...bracket, [key]: text } });
  const [kind, setKind] = useState<'market' | 'limit'>('market');
  const [limitTyped, setLimit] = useState<{ symbol: string; price: string; tif: TimeInForce } | null>(null);
  const limit = limitTyped?.symbol === symbol ? limitTyped : { symbol, price: '', tif: 'GTC' as const };
  const last = stores.market.prices.value.get(exchangeSymbol(symbol))?.p;
  const limitPrice = Number.parseFloat(limit.price);
  const sizedAt = kind === 'limit' && Number.isFinite(limitPrice) && limitPrice > 0 ? limitPrice : last;
  const hint = totalHint(symbol, Number.parseFloat(total), sizedAt);
  const placing = status.state === 'placing';
  const submit = (side: PanelSide): void =>
    void tradePanel.submit(
      side,
      Number.parseFloat(total),
      stores.ui.symbol.peek(),
      kind === 'limit' ? NO_BRACKET : bracket,
      kind === 'limit' ? { price: limitPrice, timeInForce: limit.tif } : undefined,
    );

  return (
    <div className="trade-panel" data-testid="trade-panel">
      <div className="trade-ticket">
        <AccountBadge />
        <span className="trade-symbol">{symbol}</span>
        <span className="trade-last" data-testid="trade-last">
          {formatPrice(symbol, last)}
        </span>
        <span className="trade-kind">{kind === 'limit' ? 'Limit' : 'Market'} · USDS-M perpetual</span>
      </div>
      <div className="trade-type" role="group" aria-label="Order type">
        {(['market', 'limit'] as const).map((k) => (
          <button
            key={k}
            type="button"
            className={kind === k ? 'button small active' : 'button small'}
            aria-pressed={kind === k}
            disabled={placing}
            onClick={() => setKind(k)}
          >
            {k === 'market' ? 'Market' : 'Limit'}
          </button>
        ))}
      </div>
      {kind === 'limit' ? (
        <div className="trade-bracket">
          <label className="field">
            <span>Price (USDT)</span>
            <input
              type="number"
              min={0}
              step="any"
              placeholder={last === undefined ? 'price' : String(last)}
              value={limit.price}
              disabled={placing}
              data-testid="trade-limit-price"
              onChange={(event) => setLimit({ ...limit, price: event.currentTarget.value })}
            />
          </label>
          <label className="field">
            <span>Time in force</span>
            <select
              value={limit.tif}
              disabled={placing}
              onChange={(event) => setLimit({ ...limit, tif: event.currentTarget.value as TimeInForce })}
            >
              {TIME_IN_FORCE.map((tif) => (
                <option key={tif} value={tif}>
                  {tif === 'POST' ? 'Post only' : tif}
                </option>
              ))}
            </select>
          </label>
        </div>
      ) : null}
      <label className="field">
        <span>Total (USDT)</span>
        <input
          type="number"
          min={0}
          step={1}
          value={total}
          disabled={placing}
          onChange={(event) => setTyped({ symbol, text: event.currentTarget.value })}
          aria-describedby="trade-hint"
        />
      </label>
      <p id="trade-hint" className={`trade-hint${hint.refused ? ' refused' : ''}`} data-testid="trade-hint">
        {hint.minimum === null ? null : <span data-testid="trade-minimum">{hint.minimum}</span>}
        {hint.minimum !== null && hint.sizing !== null ? ' · ' : null}
        {hint.sizing === null ? null : <span data-testid="trade-sizing">{hint.sizing}</span>}
      </p>
      <div className="trade-bracket" hidden={kind === 'limit'}>
        <label className="field">
          <span>Stop loss</span>
          <input
            type="text"
            inputMode="decimal"
            placeholder="2% or price"
            value={bracket.stopLoss}
            disabled={placing}
            onChange={(event) => type('stopLoss', event.currentTarget.value)}
          />
        </label>
        <label className="field">
          <span>Take profit</span>
          <input
            type="text"
            inputMode="decimal"
            placeholder="5% or price"
            value={bracket.takeProfit}
            disabled={placing}
            onChange={(event) => type('takeProfit', event.currentTarget.value)}
          />
        </label>
      </div>
      <div className="trade-buttons">
        <button type="button" className="button buy" disabled={placing} onClick={() => submit('buy')}>
          Buy / Long
        </button>
        <button type="button" className="button sell" disabled={placing} onClick={() => submit('sell')}>
          Sell / Short
        </button>
      </div>
      <p className={`trade-status ${status.state}`} role="status" data-testid="trade-status">
        {status.state === 'placing' ? 'Placing order…' : status.state === 'idle' ? '' : status.message}
      </p>
    </div>
  );
}
