import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { useSubscription } from '../app/pages/useSubscription';
import type { PlanType } from '../contracts/billing';
import { cancelFromPlanTab, changePlan } from '../services/billing';
import {
  activeCard,
  cancelAction,
  cancelAdvice,
  cardGatewayOf,
  planFacts,
  switchQuestion,
  switchTarget,
} from '../services/planFacts';
import { formatDay, isActive } from '../services/premium';

const CANCEL_LABEL = {
  schedule: 'Cancel renewal',
  stop: 'Cancel subscription',
  end: 'Cancel Premium',
} as const;

/**
 * The account's plan: what it is, how it is paid (a card subscription and a crypto period side by side
 * while both run), when it renews or ends, and how it can be cancelled or switched to the other plan.
 */
export function PlanTab() {
  useSignals();
  const { stores, clock, api, confirmations } = useServices();
  const [reads, setReads] = useState(0);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const read = useSubscription(reads);
  const card = cardGatewayOf(stores.connection.health.value?.payments);
  const action = read.state === 'ok' ? cancelAction(read.view, card) : null;
  const target = read.state === 'ok' ? switchTarget(read.view) : null;
  const cancel = async (how: 'schedule' | 'stop' | 'end'): Promise<void> => {
    const endsOn = read.state === 'ok' ? formatDay(activeCard(read.view)?.current_period_end ?? null) : null;
    setBusy(true);
    const done = await cancelFromPlanTab({ main: api.main, dialogs: confirmations }, how, endsOn);
    setBusy(false);
    if (done === null) return;
    setNotice(done.ok ? { ok: true, text: done.value } : { ok: false, text: done.message });
    if (done.ok) setReads((n) => n + 1);
  };
  const switchTo = async (plan: PlanType): Promise<void> => {
    if (read.state !== 'ok') return;
    const ask = switchQuestion(read.view, plan, clock.now(), card);
    const yes = await confirmations.confirm(ask.question, {
      title: 'Switch plan',
      details: ask.details,
      confirmLabel: `Switch to ${plan}`,
    });
    if (!yes) return;
    setBusy(true);
    const done = await changePlan(api.main, plan);
    setBusy(false);
    setNotice(done.ok ? { ok: true, text: done.value.message } : { ok: false, text: done.message });
    if (done.ok) setReads((n) => n + 1);
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
          {isActive(read.view.status) || action !== null ? (
            <>
              <p className="message" data-testid="plan-cancel">
                {cancelAdvice(read.view, card)}
              </p>
              {target === null ? null : (
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() => void switchTo(target)}
                >
                  {`Switch to ${target}`}
                </button>
              )}
              {action === null ? null : (
                <button
                  type="button"
                  className="button danger"
                  disabled={busy}
                  onClick={() => void cancel(action)}
                >
                  {CANCEL_LABEL[action]}
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
