import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { isActive } from '../services/premium';

/**
 * docs/product.md §2 header buttons: Login / Sign Up, or Upgrade to Premium (while the subscription is not
 * active), Admin Panel (admins), Account, Settings (the Notifications & Alerts settings), Trade Rules,
 * API Settings and Logout.
 */
export function AuthButtons() {
  useSignals();
  const { stores, auth, keys } = useServices();
  const { session } = stores;
  if (session.isLoggedIn.value) {
    const user = session.user.value;
    return (
      <span className="auth-buttons">
        <span className="user-name" data-testid="user-name">
          {user?.username ?? ''}
        </span>
        {user !== null && !isActive(user.subscriptionStatus) && (
          <button
            type="button"
            className="button upgrade-button"
            onClick={() => stores.premium.openUpgrade()}
          >
            Upgrade to Premium
          </button>
        )}
        {user?.role === 'admin' && (
          <button type="button" className="button" onClick={() => stores.premium.openAdmin()}>
            Admin Panel
          </button>
        )}
        <button type="button" className="button" onClick={() => void auth.account.show('devices')}>
          Account
        </button>
        <button type="button" className="button" onClick={() => stores.alerts.openModal()}>
          Settings
        </button>
        <button type="button" className="button" onClick={() => stores.rules.openModal()}>
          Trade Rules
        </button>
        <button type="button" className="button" onClick={() => keys.show()}>
          API Settings
        </button>
        <button type="button" className="button" onClick={() => void auth.logout()}>
          Logout
        </button>
      </span>
    );
  }
  return (
    <span className="auth-buttons">
      <button type="button" className="button" onClick={() => auth.modal.switchTo('login')}>
        Login
      </button>
      <button type="button" className="button primary" onClick={() => auth.modal.switchTo('signup')}>
        Sign Up
      </button>
    </span>
  );
}
