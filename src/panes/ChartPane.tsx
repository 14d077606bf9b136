import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** The chart pane; the candlestick chart replaces the body in a later change. */
export function ChartPane() {
  useSignals();
  const symbol = useServices().stores.ui.symbol.value;
  return (
    <section className="pane" aria-labelledby="chart-title">
      <div className="pane-header">
        <h2 id="chart-title">Chart</h2>
        <span className="pane-symbol" data-testid="chart-symbol">
          {symbol}
        </span>
      </div>
      <div className="pane-body pane-empty">
        <span className="chart-symbol-large">{symbol}</span>
      </div>
    </section>
  );
}
