import { useSignals } from '@preact/signals-react/runtime';
import { cardGatewayOf, trialStarted } from '../../services/planFacts';
import { formatDay, isActive } from '../../services/premium';
import { useServices } from '../AppContext';
import { Link } from '../Link';
import { PageShell } from './PageShell';
import { useSubscription } from './useSubscription';

const STATUS_LABEL: Record<string, string> = {
  active: 'Active',
  inactive: 'Not active',
  past_due: 'Payment due',
  canceled: 'Cancelled',
  expired: 'Expired',
};

/** docs/product.md §2 payment success: the subscription's status and end date, and "Go to Dashboard". */
export function PaymentSuccessPage() {
  useSignals();
  const read = useSubscription();
  const { clock, stores } = useServices();
  const card = cardGatewayOf(stores.connection.health.value?.payments);
  // A card checkout starts a free trial: nothing was paid today, so the page says so.
  const trial = read.state === 'ok' ? trialStarted(read.view, clock.now(), card) : null;
  return (
    <PageShell
      title={
        read.state === 'loading'
          ? 'Payment confirmation'
          : trial !== null
            ? 'Free trial started'
            : 'Payment received'
      }
    >
      {read.state === 'loading' ? null : trial !== null ? (
        <p data-testid="trial-note">{trial}</p>
      ) : (
        <p>Thank you for your payment.</p>
      )}
      {read.state === 'loading' && (
        <p className="muted" role="status">
          Checking your subscription…
        </p>
      )}
      {read.state === 'error' && (
        <p className="message error" role="alert" data-testid="subscription-error">
          {read.message}
        </p>
      )}
      {read.state === 'ok' && (
        <dl className="subscription-facts" data-testid="subscription-facts">
          <dt>Status</dt>
          <dd data-testid="subscription-status">
            {isActive(read.view.status)
              ? 'Premium active'
              : (STATUS_LABEL[read.view.status] ?? read.view.status)}
          </dd>
          <dt>{read.view.trial_end !== null ? 'Free trial ends' : 'Current period ends'}</dt>
          <dd data-testid="subscription-end">
            {formatDay(read.view.trial_end ?? read.view.current_period_end) ?? '—'}
          </dd>
          {read.view.plan !== null && (
            <>
              <dt>Plan</dt>
              <dd>{read.view.plan === 'monthly' ? 'Monthly' : 'Yearly'}</dd>
            </>
          )}
        </dl>
      )}
      {read.state === 'ok' && !isActive(read.view.status) && (
        <p className="muted">
          The payment provider has not confirmed the payment yet; your plan changes as soon as it does.
        </p>
      )}
      <Link to="/" className="button primary">
        Go to Dashboard
      </Link>
    </PageShell>
  );
}
