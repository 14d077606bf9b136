import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** Open positions; the table and its live socket come in a later change. */
export function PositionsPane() {
  useSignals();
  const loggedIn = useServices().stores.session.isLoggedIn.value;
  return (
    <div className="pane-empty" data-testid="positions">
      {loggedIn ? 'Positions are not available in this build yet.' : 'Please log in to view positions.'}
    </div>
  );
}
