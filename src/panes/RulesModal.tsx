import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import { SENTIMENTS, type Rule } from '../contracts/rules';
import { SYMBOLS } from '../contracts/symbols';
import {
  bodyOf,
  curvePoints,
  EMPTY_RULE_FORM,
  formOf,
  type RuleFormFields,
} from '../services/rules/ruleForm';
import { backtestSummary } from '../services/rules/backtest';
import { describeRule } from '../services/rules/rules';
import { Dialog } from './Dialog';
import { RiskSection } from './RiskSection';
import { RulesLedger } from './RulesLedger';
import './RulesModal.css';

type Notice = { tone: 'error' | 'ok'; text: string } | null;

/** docs/product.md §2 Trade Rules & Settings modal: the rules, an add/edit form, the risk envelope, the ledger, a backtest. */
export function RulesModal() {
  useSignals();
  const { stores, rules: api, confirmations } = useServices();
  const store = stores.rules;
  const open = store.modalOpen.value && stores.session.isLoggedIn.value;
  const [form, setForm] = useState<RuleFormFields>(EMPTY_RULE_FORM);
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [testing, setTesting] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    void api.load().then((r) => !r.ok && setNotice({ tone: 'error', text: r.message }));
    void api.risk();
    void api.ledger(20);
  }, [open, api]);

  if (!open) return null;
  const close = () => {
    setNotice(null);
    store.closeModal();
  };
  const set =
    <K extends keyof RuleFormFields>(key: K) =>
    (event: { currentTarget: { value: string; checked?: boolean; type?: string } }) => {
      const t = event.currentTarget;
      setForm((f) => ({ ...f, [key]: t.type === 'checkbox' ? Boolean(t.checked) : t.value }));
    };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const body = bodyOf(form);
    if (!body.ok) return setNotice({ tone: 'error', text: body.message });
    const done = editing === null ? await api.create(body.body) : await api.update(editing, body.body);
    if (!done.ok) return setNotice({ tone: 'error', text: done.message });
    setNotice({ tone: 'ok', text: `Saved: ${done.value.ruleName}.` });
    setForm(EMPTY_RULE_FORM);
    setEditing(null);
  };
  const toggle = async (rule: Rule) => {
    const done = await api.update(rule.id, { isActive: !rule.isActive });
    setNotice(done.ok ? null : { tone: 'error', text: done.message });
  };
  const remove = async (rule: Rule) => {
    const asked = confirmations.confirm(`Are you sure you want to delete the rule "${rule.ruleName}"?`, {
      title: 'Delete rule',
      confirmLabel: 'Delete rule',
    });
    if (!(await asked)) return;
    const done = await api.remove(rule.id);
    setNotice(
      done.ok ? { tone: 'ok', text: `Deleted: ${rule.ruleName}.` } : { tone: 'error', text: done.message },
    );
  };
  const backtest = async (rule: Rule) => {
    setTesting(rule.id);
    // By default, all the news stored: a run on a fresh server still has trades to show.
    const done = await api.backtest(rule.id, { hold_minutes: 30 });
    setTesting(null);
    if (!done.ok) setNotice({ tone: 'error', text: done.message });
  };

  const list = store.rules.value;
  return (
    <Dialog label="Trade Rules & Settings" className="rules-modal" onClose={close} testId="rules-modal">
      <h2>Trade Rules &amp; Settings</h2>
      <section aria-label="Your rules">
        <h3>Rules</h3>
        {list.length === 0 ? (
          <p className="muted">No rules yet: add one below.</p>
        ) : (
          <ul className="rule-list">
            {list.map((rule) => (
              <li key={rule.id} className="rule-row" data-testid="rule-row">
                <label className="switch">
                  <input
                    type="checkbox"
                    checked={rule.isActive}
                    onChange={() => void toggle(rule)}
                    aria-label={`${rule.ruleName} active`}
                  />
                </label>
                <span className="rule-name">{rule.ruleName}</span>
                <span
                  className={`rule-mode${rule.mode === 'ask' ? ' ask' : ''}`}
                  data-testid="rule-mode"
                  title={
                    rule.mode === 'ask'
                      ? `Proposes each order and waits ${rule.ask_window_sec ?? 60} s for your answer`
                      : 'Places its orders by itself'
                  }
                >
                  {rule.mode === 'ask' ? 'ASK' : 'AUTO'}
                </span>
                <span className="rule-what">{describeRule(rule)}</span>
                <button
                  type="button"
                  className="button small"
                  onClick={() => void backtest(rule)}
                  disabled={testing !== null}
                >
                  {testing === rule.id ? 'Testing…' : 'Backtest'}
                </button>
                <button
                  type="button"
                  className="button small"
                  onClick={() => {
                    setEditing(rule.id);
                    setForm(formOf(rule));
                  }}
                >
                  Edit
                </button>
                <button type="button" className="button small danger" onClick={() => void remove(rule)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
        <Backtest />
      </section>

      <form
        className="rule-form"
        onSubmit={(e) => void save(e)}
        aria-label={editing ? 'Edit rule' : 'Add rule'}
      >
        <h3>{editing ? 'Edit rule' : 'Add rule'}</h3>
        <label className="field">
          <span>Name</span>
          <input value={form.ruleName} onChange={set('ruleName')} maxLength={100} />
        </label>
        <label className="field">
          <span>Asset (blank: any)</span>
          <input value={form.asset} onChange={set('asset')} list="rule-assets" placeholder="any" />
          <datalist id="rule-assets">
            {SYMBOLS.map((s) => (
              <option key={s.ticker} value={s.ticker} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span>Sentiment</span>
          <select value={form.sentiment} onChange={set('sentiment')}>
            <option value="">any</option>
            {SENTIMENTS.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="field narrow">
          <span>Min impact</span>
          <input type="number" min={0} max={100} value={form.minImpact} onChange={set('minImpact')} />
        </label>
        <label className="field narrow">
          <span>Max impact</span>
          <input type="number" min={0} max={100} value={form.maxImpact} onChange={set('maxImpact')} />
        </label>
        <label className="field">
          <span>Include words (one of)</span>
          <input
            value={form.include}
            onChange={set('include')}
            placeholder="listing, list*, spot etf"
            aria-label="Include words"
          />
        </label>
        <label className="field">
          <span>Exclude words</span>
          <input
            value={form.exclude}
            onChange={set('exclude')}
            placeholder="perpetual"
            aria-label="Exclude words"
          />
        </label>
        <label className="field narrow">
          <span>Side</span>
          <select value={form.side} onChange={set('side')}>
            <option value="long">long</option>
            <option value="short">short</option>
          </select>
        </label>
        <label className="field narrow">
          <span>Amount (USDT)</span>
          <input type="number" min={1} step={1} value={form.amount} onChange={set('amount')} />
        </label>
        <label className="field narrow">
          <span>Take profit %</span>
          <input type="number" min={0} step="any" value={form.takeProfit} onChange={set('takeProfit')} />
        </label>
        <label className="field narrow">
          <span>Stop loss %</span>
          <input type="number" min={0} step="any" value={form.stopLoss} onChange={set('stopLoss')} />
        </label>
        <label className="field narrow">
          <span>Max hold (min)</span>
          <input type="number" min={1} step={1} value={form.maxHold} onChange={set('maxHold')} />
        </label>
        <label className="field narrow">
          <span>Mode</span>
          <select value={form.mode} onChange={set('mode')} aria-label="Mode">
            <option value="auto">Auto</option>
            <option value="ask">Ask first</option>
          </select>
        </label>
        {form.mode === 'ask' && (
          <label className="field narrow">
            <span>Ask window (s)</span>
            <input
              type="number"
              min={10}
              max={600}
              step={1}
              value={form.askWindow}
              onChange={set('askWindow')}
              aria-label="Ask window in seconds"
            />
          </label>
        )}
        <label className="check">
          <input type="checkbox" checked={form.isActive} onChange={set('isActive')} /> Active
        </label>
        <div className="form-actions">
          <button type="submit" className="button primary">
            {editing ? 'Save changes' : 'Add rule'}
          </button>
          {editing && (
            <button
              type="button"
              className="button"
              onClick={() => {
                setEditing(null);
                setForm(EMPTY_RULE_FORM);
              }}
            >
              Cancel edit
            </button>
          )}
        </div>
      </form>
      {notice && (
        <p
          className={notice.tone === 'error' ? 'form-error' : 'form-ok'}
          role="status"
          data-testid="rules-notice"
        >
          {notice.text}
        </p>
      )}
      <RiskSection />
      <RulesLedger />
      <button type="button" className="button" onClick={close}>
        Close
      </button>
    </Dialog>
  );
}

/** The last backtest: its figures and a small equity curve. */
function Backtest() {
  useSignals();
  const { stores } = useServices();
  const r = stores.rules.backtest.value;
  if (r === null) return null;
  return (
    <div className="backtest" data-testid="backtest">
      <p data-testid="backtest-summary">{backtestSummary(r)}</p>
      <EquityCurve equity={r.equity} />
      {r.note && <p className="muted">{r.note}</p>}
    </div>
  );
}

function EquityCurve({ equity }: { equity: readonly number[] }) {
  const points = curvePoints(equity, 300, 60);
  if (points === '') return null;
  return (
    <svg className="equity" viewBox="0 0 300 60" role="img" aria-label="Equity curve of the backtest">
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
