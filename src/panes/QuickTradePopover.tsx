import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { formatQuickAmount } from '../services/feed/quickAmounts';
import './QuickTradePopover.css';

const ROWS = [
  ['long', 'Long'],
  ['short', 'Short'],
] as const;

/**
 * docs/product.md §2 quick-trade popover: a row of long and a row of short buttons, one per saved amount. It
 * stays while the mouse is on it and hides 700 ms after it leaves (the model's timer).
 */
export function QuickTradePopover({ ticker }: { ticker: string }) {
  useSignals();
  const { feed, stores } = useServices();
  const { quickTrade } = feed;
  const open = quickTrade.popover.value;
  const amounts = stores.quickAmounts.amounts.value;
  const placing = quickTrade.placing.value;
  return (
    <div
      className="quick-trade"
      role="group"
      aria-label={`Quick trade ${ticker}`}
      data-testid="quick-trade"
      onMouseEnter={() => open !== null && quickTrade.hover(open.signalId, ticker)}
      onMouseLeave={() => quickTrade.leave()}
    >
      {ROWS.filter(([side]) => open?.row == null || open.row === side).map(([side, label]) => (
        <div key={side} className={`quick-trade-row ${side}`}>
          <span className="quick-trade-label">
            {label} {ticker}
          </span>
          {amounts.map((amount, i) => (
            <button
              key={amount}
              type="button"
              className={`quick-trade-button ${side}`}
              disabled={placing}
              title={`${label} ${ticker}/USDT for ${amount} USDT${open?.row === side && i < 9 ? ` (key ${i + 1})` : ''}`}
              onClick={() => void quickTrade.trade(side, amount)}
            >
              {formatQuickAmount(amount)}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}
