import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import './Toasts.css';

/** What happened on the user's behalf (a rule fired, closed or was held back), for a few seconds. */
export function Toasts() {
  useSignals();
  const { toasts } = useServices();
  const shown = toasts.shown.value;
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="toasts">
      {shown.map((toast) => (
        <div key={toast.id} className={`toast ${toast.tone}`} data-testid="toast" data-tone={toast.tone}>
          <span className="toast-text">{toast.text}</span>
          <button
            type="button"
            className="toast-close"
            aria-label="Dismiss"
            onClick={() => toasts.dismiss(toast.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
