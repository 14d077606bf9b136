import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { useServices } from '../app/AppContext';

/** `14:03:27`: when a kept toast was shown, in the browser's time. */
const clockTime = (at: number): string => new Date(at).toTimeString().slice(0, 8);

/**
 * "Recent · 2" under the toasts: the fills, refusals and rule events that were toasted, newest first,
 * so that a result gone from the screen can still be read. Esc or the button closes the list.
 */
export function RecentToasts() {
  useSignals();
  const { toasts } = useServices();
  const recent = toasts.recent.value;
  const unread = toasts.unread.value;
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  if (recent.length === 0) return null;
  return (
    <div className="toasts-recent">
      {open ? (
        <ol id="recent-toasts" className="recent-list" data-testid="recent-list" aria-label="Recent">
          {recent.map((r) => (
            <li key={r.id} className={`recent-item ${r.tone}`} data-tone={r.tone}>
              <time className="recent-time" dateTime={new Date(r.at).toISOString()}>
                {clockTime(r.at)}
              </time>{' '}
              {r.text}
            </li>
          ))}
        </ol>
      ) : null}
      <button
        type="button"
        className={`recent-button${unread > 0 ? ' unread' : ''}`}
        data-testid="recent-button"
        aria-expanded={open}
        aria-controls="recent-toasts"
        title="Fills, refusals and rule events shown lately (the terminal keeps them too)"
        onClick={() => {
          setOpen(!open);
          toasts.markRead();
        }}
      >
        Recent{unread > 0 ? ` · ${unread}` : ''}
      </button>
    </div>
  );
}
