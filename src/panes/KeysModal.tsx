import { useSignals } from '@preact/signals-react/runtime';
import { useRef, useState } from 'react';
import { useServices } from '../app/AppContext';
import { KEY_TEXTS } from '../contracts/exchanges';
import { VENUES, type VenueName } from '../contracts/venues';
import { keyName } from '../services/exchanges/keys';
import {
  EMPTY_DRAFT,
  KEY_VENUES,
  keyFormView,
  onVenue,
  type KeyDraft,
} from '../services/exchanges/keysModal';
import { Dialog } from './Dialog';
import './KeysModal.css';

const venueOf = (value: string): VenueName => VENUES.find((v) => v === value) ?? 'binance';

/**
 * docs/product.md §2 API Settings / API Key Management: exchange (Binance, Bybit or OKX), API Key, Secret
 * Key (and OKX's Passphrase), Save Key, and the Saved Keys with Delete per key; each key's venue,
 * environment, status and hygiene warnings. The chosen venue's checklist says where the key is made and
 * which permissions to set.
 */
export function KeysModal() {
  useSignals();
  const { keys } = useServices();
  const [draft, setDraft] = useState<KeyDraft>(EMPTY_DRAFT);
  const savedHeading = useRef<HTMLHeadingElement>(null);
  if (!keys.open.value) return null;
  const list = keys.list.value;
  const notice = keys.notice.value;
  const busy = keys.busy.value;
  const pending = keys.withdrawalsPending.value;
  const form = keyFormView(draft.exchangeName);
  const close = (): void => {
    setDraft(EMPTY_DRAFT);
    keys.hide();
  };
  const edit = (next: KeyDraft): void => {
    setDraft(next);
    keys.edited(next);
  };
  // A deleted key's row (and its Delete button) is gone: focus stays in the window, on its list.
  const keepFocus = (): void => {
    if (document.activeElement === null || document.activeElement === document.body)
      savedHeading.current?.focus();
  };
  const save = async (confirm: boolean): Promise<void> => {
    const sent = pending ?? draft;
    // The next key is most likely for the same venue: the form stays on it, emptied.
    if (await keys.save(sent, confirm)) setDraft({ ...EMPTY_DRAFT, exchangeName: sent.exchangeName });
  };
  return (
    <Dialog label="API Key Management" className="keys-modal" onClose={close} initialFocus="#key-api">
      <h2>API Key Management</h2>
      <form
        className="keys-form"
        aria-label="Save a key"
        onSubmit={(event) => {
          event.preventDefault();
          void save(false);
        }}
      >
        <label className="field wide">
          <span>Exchange</span>
          <select
            name="exchange"
            value={draft.exchangeName}
            disabled={busy || pending !== null}
            onChange={(event) => edit(onVenue(draft, venueOf(event.currentTarget.value)))}
          >
            {KEY_VENUES.map((v) => (
              <option key={v.venue} value={v.venue}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
        <div className="keys-checklist" data-testid="key-checklist">
          <p className="keys-where">
            <span className="keys-checklist-label">Where to make it:</span> {form.where}
          </p>
          <p className="keys-checklist-label">Set on the key:</p>
          <ul>
            {form.checklist.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </div>
        <label className="field wide">
          <span>Environment</span>
          <select
            name="environment"
            value={draft.environment}
            disabled={busy}
            onChange={(event) =>
              setDraft({ ...draft, environment: event.currentTarget.value === 'live' ? 'live' : 'demo' })
            }
          >
            <option value="demo">{form.demoLabel}</option>
            <option value="live">{form.liveLabel}</option>
          </select>
        </label>
        {draft.environment === 'live' && (
          <p className="keys-live-warning" role="note" data-testid="key-live-warning">
            {form.liveWarning}
          </p>
        )}
        <label className="field wide">
          <span>API Key</span>
          <input
            id="key-api"
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={draft.apiKey}
            disabled={busy}
            onChange={(event) => edit({ ...draft, apiKey: event.currentTarget.value })}
          />
        </label>
        <label className="field wide">
          <span>Secret Key</span>
          <input
            type="password"
            autoComplete="new-password"
            value={draft.secretKey}
            disabled={busy}
            onChange={(event) => edit({ ...draft, secretKey: event.currentTarget.value })}
          />
        </label>
        {form.passphrase && (
          <label className="field wide">
            <span>Passphrase</span>
            <input
              type="password"
              autoComplete="new-password"
              value={draft.passphrase}
              disabled={busy}
              onChange={(event) => edit({ ...draft, passphrase: event.currentTarget.value })}
            />
          </label>
        )}
        {pending === null ? (
          <button type="submit" className="button primary" disabled={busy}>
            Save Key
          </button>
        ) : (
          <div className="keys-confirm" data-testid="withdrawals-confirm">
            <button type="button" className="button danger" disabled={busy} onClick={() => void save(true)}>
              Save anyway
            </button>
            <button type="button" className="button" disabled={busy} onClick={() => keys.cancelWithdrawals()}>
              Cancel
            </button>
          </div>
        )}
        {notice === null ? (
          <p className="message" role="status" data-testid="keys-notice" />
        ) : (
          <p
            className={`message ${notice.tone}`}
            role={notice.tone === 'error' ? 'alert' : 'status'}
            data-testid="keys-notice"
          >
            {notice.text}
          </p>
        )}
      </form>
      <section className="keys-saved" aria-label="Saved Keys">
        <h3 ref={savedHeading} tabIndex={-1}>
          Saved Keys
        </h3>
        {(list.status === 'idle' || list.status === 'loading') && (
          <p className="message">{KEY_TEXTS.loading}</p>
        )}
        {list.status === 'error' && (
          <p className="message error" role="alert">
            {list.message}
          </p>
        )}
        {list.status === 'ready' && list.items.length === 0 && <p className="message">{KEY_TEXTS.none}</p>}
        {list.status === 'ready' && list.items.length > 0 && (
          <ul className="key-list">
            {list.items.map((k) => (
              <li key={k.id} className="key-row" data-testid="key-row">
                <span className="key-main" title={keyName(k)}>
                  <span className="key-exchange">{keyFormView(k.exchangeName).label}</span>
                  <span className="key-sep" aria-hidden="true">
                    ·
                  </span>
                  <span className={`key-env ${k.environment}`}>
                    {k.environment === 'demo' ? 'DEMO' : 'LIVE'}
                  </span>
                  <span className="key-sep" aria-hidden="true">
                    ·
                  </span>
                  <code className="key-hint">{k.keyHint}</code>
                  <span className={`key-status ${k.status}`}>{k.status}</span>
                  <button
                    type="button"
                    className="button"
                    disabled={busy}
                    aria-label={`Delete key ${keyName(k)}`}
                    onClick={() => void keys.remove(k.id).then(keepFocus)}
                  >
                    Delete
                  </button>
                </span>
                <span className="key-meta">
                  {k.permissions.length > 0 ? k.permissions.join(', ') : 'permissions not checked yet'} · id{' '}
                  <code>{k.id}</code>
                </span>
                {k.warnings.map((w) => (
                  <span key={w} className="key-warning" data-testid="key-warning">
                    {KEY_TEXTS.warnings[w]}
                  </span>
                ))}
              </li>
            ))}
          </ul>
        )}
      </section>
      <button type="button" className="button" onClick={close}>
        Close
      </button>
    </Dialog>
  );
}
