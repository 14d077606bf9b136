import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import type { DialogRequest } from '../services/confirmations';
import { Dialog } from './Dialog';

/**
 * The app's own confirm and alert: the question in the spec's words, what it will act on, and two
 * buttons (one for an alert). Cancel has focus first, so Enter never closes a position by accident;
 * Esc answers no, and focus goes back to the button that asked. A question that asks for it (a line
 * dragged on the chart) starts on its yes button instead.
 */
export function ConfirmDialog() {
  useSignals();
  const { confirmations } = useServices();
  const request = confirmations.current.value;
  if (request === null) return null;
  return <ConfirmPanel key={request.id} request={request} answer={(yes) => confirmations.answer(yes)} />;
}

function ConfirmPanel({ request, answer }: { request: DialogRequest; answer: (yes: boolean) => void }) {
  const alert = request.kind === 'alert';
  return (
    <Dialog
      label={request.title}
      className="confirm-modal"
      testId="confirm-dialog"
      onClose={() => answer(false)}
      initialFocus={alert || request.enterConfirms ? '[data-action="yes"]' : '[data-action="no"]'}
    >
      <h2 data-request={request.id}>{request.title}</h2>
      <p className="confirm-message" data-testid="confirm-message">
        {request.message}
      </p>
      {request.details.length === 0 ? null : (
        <ul className="confirm-details" data-testid="confirm-details">
          {request.details.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <div className="actions">
        {alert ? null : (
          <button type="button" className="button" data-action="no" onClick={() => answer(false)}>
            Cancel
          </button>
        )}
        <button
          type="button"
          className={alert ? 'button primary' : 'button danger'}
          data-action="yes"
          onClick={() => answer(true)}
        >
          {request.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
