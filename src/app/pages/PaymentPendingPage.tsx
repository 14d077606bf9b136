import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { AUTH_TEXT } from '../../services/auth/messages';
import { PENDING_TEXT, rememberStatus, watchPending, type PendingState } from '../../services/premium';
import { useServices } from '../AppContext';
import { Link } from '../Link';
import { PageShell } from './PageShell';

/**
 * docs/product.md §2/§4/§9 payment pending: a spinner and a message while the subscription is read every 10 s;
 * on to /payment/success once it is active; after 300 s the longer-wait message and a way back.
 */
export function PaymentPendingPage() {
  useSignals();
  const { api, clock, router, stores } = useServices();
  const resumed = stores.session.resumed.value;
  const loggedIn = stores.session.isLoggedIn.value;
  const [state, setState] = useState<PendingState>({ phase: 'waiting', checks: 0 });

  // The watch starts once the start-up refresh has answered, and again when the person signs in.
  useEffect(() => {
    if (!resumed || !loggedIn) return undefined;
    return watchPending({
      main: api.main,
      clock,
      onState: setState,
      onActive: (view) => {
        rememberStatus(stores.session, view);
        router.navigate('/payment/success');
      },
    });
  }, [api.main, clock, router, stores.session, resumed, loggedIn]);

  const slow = state.phase === 'slow';
  return (
    <PageShell title={slow ? 'Still waiting for your payment' : 'Waiting for your payment'}>
      {!slow && <div className="spinner" role="status" aria-label="Waiting for payment confirmation" />}
      <p data-testid="pending-message">{slow ? PENDING_TEXT.slow : PENDING_TEXT.waiting}</p>
      {resumed && !loggedIn && (
        <p className="message error" role="alert" data-testid="pending-error">
          {AUTH_TEXT.mustLogIn}
        </p>
      )}
      {state.phase === 'unreadable' && (
        <p className="message error" role="alert" data-testid="pending-error">
          {state.message}
        </p>
      )}
      <Link to="/" className={slow ? 'button primary' : 'button'}>
        Back to Dashboard
      </Link>
    </PageShell>
  );
}
