import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** "Live" while every live channel (the price socket; the signal stream later) is connected. */
export function LiveIndicator() {
  useSignals();
  const live = useServices().stores.connection.live.value;
  return (
    <span
      className={live ? 'live-indicator live' : 'live-indicator'}
      data-testid="live-indicator"
      role="status"
    >
      <span className="dot" aria-hidden="true" />
      {live ? 'Live' : 'Connecting'}
    </span>
  );
}
