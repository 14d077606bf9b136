import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { saveFeedFilterText } from '../services/feed/feedFilter';

/**
 * The feed header's word filter: a button with the count of hidden cards, and under it the include and
 * exclude fields, Save and Clear. The same filter as `feed filter` in the terminal.
 */
export function FeedFilterControl() {
  useSignals();
  const { stores, api } = useServices();
  const store = stores.feedFilter;
  const filter = store.filter.value;
  const hidden = stores.feedView.hiddenByWords.value;
  const [open, setOpen] = useState(false);
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (): void => {
    if (!open) {
      setInclude(filter.include.join(', '));
      setExclude(filter.exclude.join(', '));
      setMessage(null);
    }
    setOpen(!open);
  };
  const save = async (inc: string, exc: string): Promise<void> => {
    setBusy(true);
    const done = await saveFeedFilterText(
      { main: api.main, store, loggedIn: stores.session.isLoggedIn.peek() },
      inc,
      exc,
    );
    setBusy(false);
    if (done.ok) {
      setInclude(done.filter.include.join(', '));
      setExclude(done.filter.exclude.join(', '));
    }
    setMessage(done.ok ? null : done.message);
  };
  const on = store.active.value;
  return (
    <span className="feed-filter-control">
      <button
        type="button"
        className={`feed-header-button${on ? ' active' : ''}`}
        aria-expanded={open}
        data-testid="feed-filter-button"
        title="Show only signals with some words, or hide those with others (alerts follow it)"
        onClick={toggle}
      >
        {on ? `Words · ${hidden} hidden` : 'Words'}
      </button>
      {open && (
        <form
          className="feed-filter-form"
          data-testid="feed-filter-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save(include, exclude);
          }}
        >
          <label>
            <span>Include (one of)</span>
            <input
              value={include}
              onChange={(e) => setInclude(e.target.value)}
              placeholder="listing, hack, spot etf"
              aria-label="Include words"
            />
          </label>
          <label>
            <span>Exclude</span>
            <input
              value={exclude}
              onChange={(e) => setExclude(e.target.value)}
              placeholder="perpetual"
              aria-label="Exclude words"
            />
          </label>
          <p className="feed-filter-help">
            Comma-separated, whole words: “list” does not match “listing”; list* matches both.
          </p>
          {message === null ? null : (
            <p className="feed-filter-error" role="alert">
              {message}
            </p>
          )}
          <span className="feed-filter-actions">
            <button type="submit" className="feed-header-button" disabled={busy}>
              Save
            </button>
            <button
              type="button"
              className="feed-header-button"
              disabled={busy || !on}
              onClick={() => void save('', '')}
            >
              Clear
            </button>
          </span>
        </form>
      )}
    </span>
  );
}
