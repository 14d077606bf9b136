import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import type { RiskSettings } from '../contracts/rules';
import { utcTime } from '../services/time';

const FIELDS: readonly [keyof RiskSettings, string][] = [
  ['max_order_usd', 'Max order (USDT, every order)'],
  ['daily_budget_usd', 'Daily budget (USDT)'],
  ['max_positions', 'Max positions opened by rules'],
  ['cooldown_minutes', 'Cooldown per asset (min)'],
  ['max_age_seconds', 'Max signal age (s)'],
];

/** "Max order 50,000 USDT: 5 × your 10,000 paper balance (the default; set your own below)." */
function maxOrderLine(usd: number, basis: string, saved: boolean): string {
  const figure = usd.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return saved
    ? `Max order ${figure} USDT: ${basis}.`
    : `Max order ${figure} USDT: ${basis} (the default; set your own below).`;
}

/** The risk envelope and the kill switch, in the Trade Rules modal. */
export function RiskSection() {
  useSignals();
  const { stores, rules: api } = useServices();
  const risk = stores.rules.risk.value;
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    if (risk) setDraft(Object.fromEntries(FIELDS.map(([k]) => [k, String(risk[k])])));
  }, [risk]);
  if (risk === null) return null;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    // Only what was changed: a default left as it is stays the default that fits the account.
    const change = Object.fromEntries(
      FIELDS.filter(([k]) => Number(draft[k]) !== risk[k]).map(([k]) => [k, Number(draft[k])]),
    );
    if (Object.keys(change).length === 0) {
      setMessage('Nothing changed.');
      return;
    }
    const done = await api.saveRisk(change);
    setMessage(done.ok ? 'Risk settings saved.' : done.message);
  };
  const kill = async (on: boolean) => {
    const done = await api.killSwitch(on);
    setMessage(done.ok ? null : done.message);
  };
  return (
    <section className="risk" aria-label="Risk settings">
      <h3>Risk and kill switch</h3>
      <p className={risk.kill_switch ? 'kill on' : 'kill'} data-testid="kill-state">
        {risk.kill_switch
          ? `Automated trading is OFF${risk.resume_at ? ` until ${utcTime(risk.resume_at)}` : ''}.`
          : `Automated trading is on: ${risk.spent_today_usd} of ${risk.daily_budget_usd} USDT used today.`}{' '}
        <button
          type="button"
          className={`button small${risk.kill_switch ? '' : ' danger'}`}
          onClick={() => void kill(!risk.kill_switch)}
        >
          {risk.kill_switch ? 'Resume automated trading' : 'Stop all automated trading'}
        </button>
      </p>
      {risk.max_order_basis !== undefined && (
        <p className="muted" data-testid="max-order-basis">
          {maxOrderLine(risk.max_order_usd, risk.max_order_basis, risk.max_order_saved === true)}
        </p>
      )}
      <form className="risk-form" onSubmit={(e) => void save(e)}>
        {FIELDS.map(([key, label]) => (
          <label key={key} className="field narrow">
            <span>{label}</span>
            <input
              type="number"
              min={0}
              value={draft[key] ?? ''}
              onChange={(e) => {
                const value = e.currentTarget.value;
                setDraft((d) => ({ ...d, [key]: value }));
              }}
            />
          </label>
        ))}
        <button type="submit" className="button">
          Save risk settings
        </button>
      </form>
      {message && (
        <p className="muted" role="status">
          {message}
        </p>
      )}
    </section>
  );
}
