import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/**
 * Says what the server reports as degraded (GET /api/healthz `degraded`): a red chip naming the first
 * problem and how many more there are; the title and the accessible name list them all. Nothing while
 * everything works.
 */
export function DegradedBadge() {
  useSignals();
  const degraded = useServices().stores.connection.degraded.value;
  const [first] = degraded;
  if (first === undefined) return null;
  const all = `Degraded: ${degraded.join('; ')}.`;
  const more = degraded.length > 1 ? ` +${degraded.length - 1}` : '';
  return (
    <span className="degraded-badge" data-testid="degraded-badge" title={all} aria-label={all} role="status">
      <span aria-hidden="true">
        DEGRADED: {first}
        {more}
      </span>
    </span>
  );
}
