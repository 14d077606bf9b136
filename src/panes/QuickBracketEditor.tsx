import { useSignals } from '@preact/signals-react/runtime';
import { useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import { bracketText } from '../services/feed/quickBracket';

const asTyped = (pct: number | null): string => (pct === null ? '' : String(pct));

/**
 * The default bracket of card and quick trades, beside the quick-trade amounts: on or off, and its
 * stop loss and take profit as a percent of the entry.
 */
export function QuickBracketEditor() {
  useSignals();
  const { stores } = useServices();
  const store = stores.quickBracket;
  const bracket = store.bracket.value;
  const [draft, setDraft] = useState({
    stopLoss: asTyped(bracket.stopLossPct),
    takeProfit: asTyped(bracket.takeProfitPct),
  });
  const [error, setError] = useState<string | null>(null);
  const save = (event: FormEvent): void => {
    event.preventDefault();
    const saved = store.setLegs(draft.stopLoss, draft.takeProfit);
    setError(saved.ok ? null : saved.message);
  };
  const turn = (on: boolean): void => {
    const turned = store.setOn(on);
    setError(turned.ok ? null : turned.message);
  };
  return (
    <section className="alerts-section" aria-label="Quick-trade bracket">
      <h3>Quick-trade bracket</h3>
      <label className="check">
        <input type="checkbox" checked={bracket.on} onChange={(event) => turn(event.target.checked)} />
        Protect card and quick trades with a stop loss and take profit
      </label>
      <form className="amount-form bracket-form" onSubmit={save}>
        <label>
          Stop loss %
          <input
            type="text"
            inputMode="decimal"
            value={draft.stopLoss}
            placeholder="2"
            onChange={(event) => setDraft({ ...draft, stopLoss: event.target.value })}
          />
        </label>
        <label>
          Take profit %
          <input
            type="text"
            inputMode="decimal"
            value={draft.takeProfit}
            placeholder="5"
            onChange={(event) => setDraft({ ...draft, takeProfit: event.target.value })}
          />
        </label>
        <button type="submit" className="button">
          Save
        </button>
      </form>
      <p className="alerts-message" role="status" data-testid="bracket-state">
        {bracketText(bracket)}
      </p>
      {error === null ? null : (
        <p className="form-error" role="alert" data-testid="bracket-error">
          {error}
        </p>
      )}
    </section>
  );
}
