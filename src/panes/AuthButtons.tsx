import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { AUTH_TEXT } from '../services/auth/messages';

/**
 * Spec §2 header buttons: Login / Sign Up, or Admin Panel (admins), Account, Settings (the
 * Notifications & Alerts settings) and Logout.
 */
export function AuthButtons() {
  useSignals();
  const { stores, auth } = useServices();
  const { session } = stores;
  if (session.isLoggedIn.value) {
    const user = session.user.value;
    return (
      <span className="auth-buttons">
        <span className="user-name" data-testid="user-name">
          {user?.username ?? ''}
        </span>
        {user?.role === 'admin' && (
          <button type="button" className="button" onClick={() => window.alert(AUTH_TEXT.adminPanel)}>
            Admin Panel
          </button>
        )}
        <button type="button" className="button" onClick={() => void auth.account.show('devices')}>
          Account
        </button>
        <button type="button" className="button" onClick={() => stores.alerts.openModal()}>
          Settings
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
