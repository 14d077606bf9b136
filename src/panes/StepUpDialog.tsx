import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { STEP_UP_TEXT, stepUpLabel } from '../services/auth/stepUp';
import { Dialog } from './Dialog';

/**
 * "Confirm it's you": opened by any call a sensitive action answers with `step_up_required` (adding an
 * API key, loosening the risk limits, unlinking the last wallet). The password or a 2FA code, then the
 * action goes on by itself; Esc or Cancel leaves it undone. Accounts with neither are offered to sign in
 * again.
 */
export function StepUpDialog() {
  useSignals();
  const { stepUp } = useServices();
  const request = stepUp.request.value;
  if (request === null) return null;
  return <StepUpForm key="step-up" />;
}

function StepUpForm() {
  useSignals();
  const { stepUp } = useServices();
  const [secret, setSecret] = useState('');
  const request = stepUp.request.value;
  if (request === null) return null;
  const label = stepUpLabel(request.state);
  return (
    <Dialog
      label={STEP_UP_TEXT.title}
      className="step-up-modal"
      testId="step-up"
      onClose={() => stepUp.cancel()}
      initialFocus={request.signInAgain ? '[data-action="sign-in-again"]' : '#step-up-secret'}
    >
      <h2>{STEP_UP_TEXT.title}</h2>
      {request.signInAgain ? (
        <div className="step-up-form">
          <p className="message error" role="alert">
            {request.error ?? STEP_UP_TEXT.signInAgain}
          </p>
          <div className="actions">
            <button
              type="button"
              className="button primary"
              data-action="sign-in-again"
              onClick={() => stepUp.signInAgain()}
            >
              Sign in again
            </button>
            <button type="button" className="button" onClick={() => stepUp.cancel()}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <form
          className="step-up-form"
          aria-label={STEP_UP_TEXT.title}
          onSubmit={(event) => {
            event.preventDefault();
            void stepUp.submit(secret);
          }}
        >
          <p>{STEP_UP_TEXT.intro}</p>
          <label className="field wide">
            <span>{label}</span>
            <input
              id="step-up-secret"
              name="step-up-secret"
              type="password"
              autoComplete={request.state.password ? 'current-password' : 'one-time-code'}
              value={secret}
              readOnly={request.busy}
              aria-invalid={request.error !== null}
              aria-describedby="step-up-error"
              onChange={(event) => setSecret(event.currentTarget.value)}
            />
          </label>
          <p id="step-up-error" className={request.error === null ? 'message' : 'message error'} role="alert">
            {request.error ?? ''}
          </p>
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={request.busy}>
              {request.busy ? 'Confirming…' : 'Confirm'}
            </button>
            <button type="button" className="button" onClick={() => stepUp.cancel()}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
