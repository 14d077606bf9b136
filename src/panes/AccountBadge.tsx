import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { accountTitle } from '../services/trading/venueNames';

/** Marks every place orders are sent from with the account they go to: PAPER, or the venue and mode (BYBIT LIVE). */
export function AccountBadge() {
  useSignals();
  const { stores } = useServices();
  const mode = stores.account.mode.value;
  const venue = stores.account.venue.value;
  return (
    <span
      className={`paper-badge account-${mode}`}
      data-testid="account-badge"
      title={accountTitle({ venue, mode })}
    >
      {stores.account.badge.value}
    </span>
  );
}
