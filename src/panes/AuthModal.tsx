import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';

/** Placeholder for the auth modal (spec §2 Modals); the forms come in a later change. */
export function AuthModal() {
  useSignals();
  const { ui } = useServices().stores;
  const mode = ui.authModal.value;
  if (mode === null) return null;
  return (
    <div className="modal-backdrop" onClick={() => ui.closeAuthModal()}>
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label={mode === 'login' ? 'Login' : 'Sign Up'}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.key === 'Escape' && ui.closeAuthModal()}
      >
        <h2>{mode === 'login' ? 'Login' : 'Sign Up'}</h2>
        <p>Signing in is not available in this build yet.</p>
        <button type="button" className="button" autoFocus onClick={() => ui.closeAuthModal()}>
          Close
        </button>
      </div>
    </div>
  );
}
