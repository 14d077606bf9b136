import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import type { AccountTab } from '../services/stores/ui';
import { ActivityTab } from './ActivityTab';
import { DevicesTab } from './DevicesTab';
import { NotificationsTab } from './NotificationsTab';
import { PlanTab } from './PlanTab';
import { Dialog } from './Dialog';
import { SecurityTab } from './SecurityTab';
import { WalletsTab } from './WalletsTab';

const TABS: readonly [AccountTab, string][] = [
  ['plan', 'Plan'],
  ['wallets', 'Connected Wallets'],
  ['devices', 'Remembered Devices'],
  ['security', 'Security'],
  ['activity', 'Activity'],
  ['notifications', 'Notifications'],
];

/**
 * docs/product.md §2 Account modal: Connected Wallets, Remembered Devices and Security; and the account's
 * Plan, Activity and Notifications (Telegram and what is sent away from the tab).
 */
export function AccountModal() {
  useSignals();
  const { stores, auth } = useServices();
  const tab = stores.ui.accountModal.value;
  if (tab === null || !stores.session.isLoggedIn.value) return null;
  return (
    <Dialog label="Account" className="account-modal" onClose={() => auth.account.close()}>
      <h2>Account</h2>
      <div className="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            className={`tab${tab === id ? ' active' : ''}`}
            onClick={() => void auth.account.show(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" className="account-panel">
        {tab === 'plan' ? (
          <PlanTab />
        ) : tab === 'wallets' ? (
          <WalletsTab />
        ) : tab === 'devices' ? (
          <DevicesTab />
        ) : tab === 'activity' ? (
          <ActivityTab />
        ) : tab === 'notifications' ? (
          <NotificationsTab />
        ) : (
          <SecurityTab />
        )}
      </div>
      <button type="button" className="button" onClick={() => auth.account.close()}>
        Close
      </button>
    </Dialog>
  );
}
