import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

const TITLES = {
  paper: 'Paper trading: orders fill on the built-in paper exchange with simulated funds.',
  live: 'LIVE: orders go to your Binance USD-M account with real funds.',
  demo: 'DEMO: orders go to your Binance demo-trading account (simulated funds).',
} as const;

/** Marks every place orders are sent from with the account they go to: PAPER, LIVE or DEMO. */
export function AccountBadge() {
  useSignals();
  const { stores } = useServices();
  const mode = stores.account.mode.value;
  return (
    <span className={`paper-badge account-${mode}`} data-testid="account-badge" title={TITLES[mode]}>
      {stores.account.badge.value}
    </span>
  );
}
