import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/**
 * Names the offline stand-ins the server reports (GET /api/healthz `standins`). Where the header is
 * short of room it says how many, never a clipped "O…"; the title and the accessible name list them all.
 */
export function StandinsBadge() {
  useSignals();
  const standins = useServices().stores.connection.standins.value;
  if (standins.length === 0) return null;
  const all = `Running offline with built-in stand-ins: ${standins.join(', ')}.`;
  return (
    <span className="standins-badge" data-testid="standins-badge" title={all} aria-label={all} role="note">
      <span className="standins-full" aria-hidden="true">
        OFFLINE: {standins.join(' · ')}
      </span>
      <span className="standins-short" aria-hidden="true">
        OFFLINE · {standins.length} stand-ins
      </span>
    </span>
  );
}
