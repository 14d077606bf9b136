import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

export function AuthButtons() {
  useSignals();
  const { session, ui } = useServices().stores;
  if (session.isLoggedIn.value) {
    return (
      <span className="auth-buttons">
        <span className="user-name">{session.user.value?.username ?? 'Signed in'}</span>
      </span>
    );
  }
  return (
    <span className="auth-buttons">
      <button type="button" className="button" onClick={() => ui.openAuthModal('login')}>
        Login
      </button>
      <button type="button" className="button primary" onClick={() => ui.openAuthModal('signup')}>
        Sign Up
      </button>
    </span>
  );
}
