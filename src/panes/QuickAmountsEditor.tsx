import { useSignals } from '@preact/signals-react/runtime';
import { useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import { formatQuickAmount } from '../services/feed/quickAmounts';

/** docs/product.md §5 quick amounts: add a number above 0 (min 1), no duplicates, kept ascending; remove any. */
export function QuickAmountsEditor() {
  useSignals();
  const { stores } = useServices();
  const amounts = stores.quickAmounts.amounts.value;
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const added = stores.quickAmounts.add(draft);
    if (!added.ok) {
      setError(added.message);
      return;
    }
    setError(null);
    setDraft('');
  };
  return (
    <section className="alerts-section" aria-label="Quick-trade amounts">
      <h3>Quick-trade amounts (USDT)</h3>
      <ul className="amount-list" data-testid="amount-list">
        {amounts.map((amount) => (
          <li key={amount} className="amount-chip">
            {formatQuickAmount(amount)}
            <button
              type="button"
              aria-label={`Remove ${amount}`}
              onClick={() => stores.quickAmounts.remove(amount)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="amount-form" onSubmit={submit}>
        <input
          type="number"
          min={1}
          step="any"
          value={draft}
          aria-label="New amount"
          placeholder="Amount"
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button">
          Add
        </button>
      </form>
      {error === null ? null : (
        <p className="form-error" role="alert" data-testid="amount-error">
          {error}
        </p>
      )}
    </section>
  );
}
