import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { exchangeSymbol } from '../contracts/trading';
import { formatTradePrice } from '../services/trading/format';
import { DEFAULT_TOTAL, type PanelSide } from '../services/trading/tradePanel';
import { PaperBadge } from './PaperBadge';
import './trading.css';

/** Spec §2 trade panel: "Total (USDT)", "Buy / Long", "Sell / Short" and the status message. */
export function TradePanel() {
  useSignals();
  const { tradePanel, stores } = useServices();
  const [total, setTotal] = useState(String(DEFAULT_TOTAL));
  const status = tradePanel.status.value;
  const symbol = stores.ui.symbol.value;
  const last = stores.market.prices.value.get(exchangeSymbol(symbol))?.p;
  const placing = status.state === 'placing';
  const submit = (side: PanelSide): void =>
    void tradePanel.submit(side, Number.parseFloat(total), stores.ui.symbol.peek());

  return (
    <div className="trade-panel" data-testid="trade-panel">
      <div className="trade-ticket">
        <PaperBadge />
        <span className="trade-symbol">{symbol}</span>
        <span className="trade-last" data-testid="trade-last">
          {formatTradePrice(last)}
        </span>
        <span className="trade-kind">Market · USD-M perpetual</span>
      </div>
      <label className="field">
        <span>Total (USDT)</span>
        <input
          type="number"
          min={0}
          step={1}
          value={total}
          disabled={placing}
          onChange={(event) => setTotal(event.currentTarget.value)}
        />
      </label>
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
