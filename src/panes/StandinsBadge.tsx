import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** Names the offline stand-ins the server reports (GET /api/healthz `standins`). */
export function StandinsBadge() {
  useSignals();
  const standins = useServices().stores.connection.standins.value;
  if (standins.length === 0) return null;
  return (
    <span
      className="standins-badge"
      data-testid="standins-badge"
      title={`Running offline with built-in stand-ins: ${standins.join(', ')}.`}
    >
      OFFLINE: {standins.join(' · ')}
    </span>
  );
}
