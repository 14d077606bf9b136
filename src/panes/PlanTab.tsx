import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { useSubscription } from '../app/pages/useSubscription';
import { cancelFromPlanTab } from '../services/billing';
import { cancelAction, cancelAdvice, cardGatewayOf, planFacts } from '../services/planFacts';
import { isActive } from '../services/premium';

/** The account's plan: what it is, how it is paid, when it renews or ends, and how it can be cancelled. */
export function PlanTab() {
  useSignals();
  const { stores, clock, api, confirmations } = useServices();
  const [reads, setReads] = useState(0);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const read = useSubscription(reads);
  const card = cardGatewayOf(stores.connection.health.value?.payments);
  const action = read.state === 'ok' ? cancelAction(read.view, card) : null;
  const cancel = async (how: 'portal' | 'end'): Promise<void> => {
    setBusy(true);
    const done = await cancelFromPlanTab(
      { main: api.main, dialogs: confirmations, redirect: (url) => stores.premium.redirect(url) },
      how,
    );
    setBusy(false);
    if (done === null) return;
    setNotice(done.ok ? { ok: true, text: done.value } : { ok: false, text: done.message });
    if (done.ok && how === 'end') setReads((n) => n + 1);
  };
  return (
    <section className="account-section" aria-label="Plan" data-testid="plan-tab">
      {read.state === 'loading' && <p className="message">Loading your plan…</p>}
      {read.state === 'error' && (
        <p className="message error" role="alert">
          {read.message}
        </p>
      )}
      {read.state === 'ok' && (
        <>
          <dl className="subscription-facts" data-testid="plan-facts">
            {planFacts(read.view, clock.now(), card).map((fact) => (
              <div key={fact.label} className="plan-fact">
                <dt>{fact.label}</dt>
                <dd>{fact.value}</dd>
              </div>
            ))}
          </dl>
          {isActive(read.view.status) ? (
            <>
              <p className="message" data-testid="plan-cancel">
                {cancelAdvice(read.view, card)}
              </p>
              {action === null ? null : (
                <button
                  type="button"
                  className="button danger"
                  disabled={busy}
                  onClick={() => void cancel(action)}
                >
                  {action === 'portal' ? 'Cancel in Stripe' : 'Cancel Premium'}
                </button>
              )}
            </>
          ) : (
            <button type="button" className="button primary" onClick={() => stores.premium.openUpgrade()}>
              Upgrade to Premium
            </button>
          )}
        </>
      )}
      {notice === null ? null : (
        <p className={notice.ok ? 'message' : 'message error'} role="status" data-testid="plan-notice">
          {notice.text}
        </p>
      )}
    </section>
  );
}
