import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** Says when prices are the offline simulator's, or when the real feed is degraded. */
export function SimulatedBadge() {
  useSignals();
  const { market } = useServices().stores;
  if (market.simulated.value) {
    return (
      <span
        className="market-badge"
        data-testid="simulated-badge"
        title="Binance is not reachable: prices come from the built-in simulator."
      >
        SIMULATED PRICES
      </span>
    );
  }
  if (market.source.value === 'binance' && market.feedStatus.value === 'degraded') {
    return (
      <span className="market-badge" data-testid="simulated-badge" title="Reconnecting to Binance.">
        PRICE FEED DELAYED
      </span>
    );
  }
  return null;
}
