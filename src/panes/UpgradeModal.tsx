import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { useServices } from '../app/AppContext';
import {
  PLANS,
  PREMIUM_FEATURES,
  TRIAL_DAYS,
  trialThen,
  type PaymentProvider,
  type PlanType,
} from '../contracts/billing';
import { loadSubscription, offeredProviders, startCheckout } from '../services/billing';
import { Dialog } from './Dialog';
import './PremiumModals.css';

const PROVIDERS: {
  id: PaymentProvider;
  label: string;
  note: (trialUsed: boolean, plan: PlanType) => string;
}[] = [
  {
    id: 'card',
    label: 'Pay by card',
    note: (trialUsed, plan) =>
      trialUsed
        ? 'charged from the start, then renews automatically'
        : `${trialThen(plan)}, renewing automatically`,
  },
  { id: 'crypto', label: 'Pay with crypto', note: () => 'one period per payment, confirmed on-chain' },
];

/**
 * docs/product.md §2 Upgrade to Premium modal: the features, the two plans (§9), the trial and the providers this
 * server offers (a provider with no payment service configured is not shown). The trial is advertised
 * only to an account that has not had it: one that had it reads "Free trial used" instead.
 */
export function UpgradeModal() {
  useSignals();
  const { stores, api } = useServices();
  const open = stores.premium.upgradeOpen.value && stores.session.isLoggedIn.value;
  const offered = offeredProviders(stores.connection.health.value?.payments);
  const [planType, setPlanType] = useState<PlanType>('monthly');
  const [busy, setBusy] = useState<PaymentProvider | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [trialUsed, setTrialUsed] = useState(false);
  useEffect(() => {
    if (!open) return undefined;
    let live = true;
    void loadSubscription(api.main).then((loaded) => {
      if (live) setTrialUsed(loaded.ok && loaded.value.trial_used);
    });
    return () => {
      live = false;
    };
  }, [open, api.main]);
  if (!open) return null;

  const close = () => {
    setError(null);
    setBusy(null);
    stores.premium.closeUpgrade();
  };
  const pay = async (provider: PaymentProvider) => {
    setBusy(provider);
    setError(null);
    const started = await startCheckout(api.main, planType, provider);
    if (!started.ok) {
      setBusy(null);
      setError(started.message);
      return;
    }
    stores.premium.redirect(started.value);
  };

  return (
    <Dialog label="Upgrade to Premium" onClose={close} className="premium-modal" testId="upgrade-modal">
      <div className="modal-title-row">
        <h2>Upgrade to Premium</h2>
        <button type="button" className="button" onClick={close} aria-label="Close">
          ✕
        </button>
      </div>
      <ul className="premium-features" aria-label="Premium features">
        {PREMIUM_FEATURES.map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
      <div className="plan-choice" role="radiogroup" aria-label="Plan">
        {(['monthly', 'yearly'] as const).map((id) => {
          const p = PLANS[id];
          return (
            <button
              key={id}
              type="button"
              role="radio"
              aria-checked={planType === id}
              className={planType === id ? 'plan-option chosen' : 'plan-option'}
              onClick={() => setPlanType(id)}
              data-testid={`plan-${id}`}
            >
              <span className="plan-name">{id === 'monthly' ? 'Monthly' : 'Yearly'}</span>
              <span className="plan-price">
                ${p.price}
                <span className="plan-per"> per {p.per}</span>
              </span>
              {'badge' in p && <span className="plan-badge">{p.badge}</span>}
            </button>
          );
        })}
      </div>
      <p className="premium-trial" data-testid="premium-trial">
        {trialUsed
          ? 'Free trial used: a card subscription is charged from the start'
          : `${TRIAL_DAYS}-day free trial`}
      </p>
      {offered.length === 0 && (
        <p className="message" role="note" data-testid="no-providers">
          Payments are not available on this server yet.
        </p>
      )}
      <div className="provider-choice">
        {PROVIDERS.filter((p) => offered.includes(p.id)).map((p) => (
          <button
            key={p.id}
            type="button"
            className="button primary provider-button"
            disabled={busy !== null}
            onClick={() => void pay(p.id)}
          >
            <span>{busy === p.id ? 'Opening checkout…' : p.label}</span>
            <span className="provider-note">{p.note(trialUsed, planType)}</span>
          </button>
        ))}
      </div>
      {error !== null && (
        <p className="message error" role="alert" data-testid="upgrade-error">
          {error}
        </p>
      )}
    </Dialog>
  );
}
