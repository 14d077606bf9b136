import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import type { AccountTab } from '../services/stores/ui';
import { DevicesTab } from './DevicesTab';
import { SecurityTab } from './SecurityTab';

const TABS: readonly [AccountTab, string][] = [
  ['devices', 'Remembered Devices'],
  ['security', 'Security'],
];

/** Spec §2 Account modal: Remembered Devices and Security (Connected Wallets comes with wallet sign-in). */
export function AccountModal() {
  useSignals();
  const { stores, auth } = useServices();
  const tab = stores.ui.accountModal.value;
  if (tab === null || !stores.session.isLoggedIn.value) return null;
  return (
    <div className="modal-backdrop" onClick={() => auth.account.close()}>
      <div
        className="modal account-modal"
        role="dialog"
        aria-modal="true"
        aria-label="Account"
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.key === 'Escape' && auth.account.close()}
      >
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
          {tab === 'devices' ? <DevicesTab /> : <SecurityTab />}
        </div>
        <button type="button" className="button" onClick={() => auth.account.close()}>
          Close
        </button>
      </div>
    </div>
  );
}
