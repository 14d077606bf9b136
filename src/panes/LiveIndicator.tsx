import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

export function LiveIndicator() {
  useSignals();
  const live = useServices().stores.connection.status.value === 'live';
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
