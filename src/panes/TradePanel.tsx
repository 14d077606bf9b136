import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { exchangeSymbol } from '../contracts/trading';
import { formatTradePrice } from '../services/trading/format';
import { defaultTotal, totalHint, type PanelSide } from '../services/trading/tradePanel';
import { AccountBadge } from './AccountBadge';
import './trading.css';

/** docs/product.md §2 trade panel: "Total (USDT)", "Buy / Long", "Sell / Short" and the status message. */
export function TradePanel() {
  useSignals();
  const { tradePanel, stores } = useServices();
  // What the user typed, for the symbol it was typed on; another symbol starts at its own default.
  const [typed, setTyped] = useState<{ symbol: string; text: string } | null>(null);
  const status = tradePanel.status.value;
  const symbol = stores.ui.symbol.value;
  const total = typed?.symbol === symbol ? typed.text : String(defaultTotal(symbol));
  const last = stores.market.prices.value.get(exchangeSymbol(symbol))?.p;
  const hint = totalHint(symbol, Number.parseFloat(total), last);
  const placing = status.state === 'placing';
  const submit = (side: PanelSide): void =>
    void tradePanel.submit(side, Number.parseFloat(total), stores.ui.symbol.peek());

  return (
    <div className="trade-panel" data-testid="trade-panel">
      <div className="trade-ticket">
        <AccountBadge />
        <span className="trade-symbol">{symbol}</span>
        <span className="trade-last" data-testid="trade-last">
          {formatTradePrice(last)}
        </span>
        <span className="trade-kind">Market · USDS-M perpetual</span>
      </div>
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
