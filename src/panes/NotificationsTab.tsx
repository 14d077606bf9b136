import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { useServices } from '../app/AppContext';
import { ALERT_THRESHOLD, type NotificationSettings } from '../contracts/notifications';
import { NOTIFY_TEXT, loadNotifications } from '../services/notifications';
import { utcDay, utcTime } from '../services/time';
import type { OutputLine } from '../services/terminal/output';

type Switch = keyof Omit<NotificationSettings, 'alert_threshold'>;

/** Each switch, the `notify` word that sets it, and what it is called here. */
const SWITCHES: readonly [Switch, string, string][] = [
  ['alerts', 'alerts', 'Alerts of high-impact signals'],
  ['fills', 'fills', "Your rules' fills and exits"],
  ['retractions', 'retractions', 'Retractions of stories you traded or were alerted on'],
  ['liquidation', 'liquidation', 'Liquidation warnings (half the way to the liquidation price)'],
  ['daily_pnl', 'pnl', 'Daily PnL at 00:00 UTC'],
];

const THRESHOLDS: number[] = [];
for (let n = ALERT_THRESHOLD.min; n <= ALERT_THRESHOLD.max; n += ALERT_THRESHOLD.step) THRESHOLDS.push(n);

/**
 * Account → Notifications: the Telegram link, and which events reach you away from the tab. Every click
 * runs the `notify` command the terminal runs, so both say the same thing.
 */
export function NotificationsTab() {
  useSignals();
  const { stores, api, terminal } = useServices();
  const store = stores.notifications;
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void loadNotifications(api.main, store).then((r) => setError(r.ok ? null : r.message));
  }, [api, store]);

  const run = async (line: string): Promise<void> => {
    setBusy(true);
    const lines: OutputLine[] = await terminal.execute(line, 'ui');
    setBusy(false);
    const failed = lines.find((l) => l.tone === 'error');
    setNotice(failed !== undefined ? { ok: false, text: failed.text } : null);
  };

  const state = store.state.value;
  const link = store.link.value;
  if (state === null) {
    return (
      <section className="account-section" aria-label="Notifications" data-testid="notifications-tab">
        <p
          className={error === null ? 'message' : 'message error'}
          role={error === null ? undefined : 'alert'}
        >
          {error ?? 'Loading your notification settings…'}
        </p>
      </section>
    );
  }
  const s = state.settings;
  const tg = state.telegram;
  const linkLive = link !== null && new Date(link.expires_at).getTime() > Date.now();
  return (
    <section
      className="account-section notifications-tab"
      aria-label="Notifications"
      data-testid="notifications-tab"
    >
      <h3>Telegram</h3>
      <div className="telegram-block" data-testid="telegram-block">
        {!tg.configured ? (
          <p className="message">{NOTIFY_TEXT.telegramOff}</p>
        ) : tg.linked ? (
          <>
            <p className="message">
              Linked to <strong>{tg.chat ?? 'your chat'}</strong>
              {tg.linked_at === null ? null : ` since ${utcDay(tg.linked_at)}`}.
            </p>
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => void run('notify telegram unlink')}
            >
              Unlink
            </button>
          </>
        ) : linkLive ? (
          <div className="telegram-code" data-testid="telegram-code">
            <p className="message">
              Send <code>{link.code}</code> to {tg.bot === null ? 'the bot' : `@${tg.bot}`}, or open{' '}
              <a href={link.url} target="_blank" rel="noopener noreferrer">
                {link.url}
              </a>
              .
            </p>
            <p className="message">
              The code works once, in a private chat with the bot, until {utcTime(link.expires_at)}; a newer
              code replaces it.
            </p>
          </div>
        ) : (
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => void run('notify telegram link')}
          >
            Link Telegram
          </button>
        )}
      </div>

      <h3>What is sent to you</h3>
      <p className="message">
        Through Telegram and the browsers you turned push on in (Notifications &amp; Alerts). Push:{' '}
        {state.push.configured
          ? `${state.push.subscriptions} browser${state.push.subscriptions === 1 ? '' : 's'}.`
          : NOTIFY_TEXT.pushServerOff}
      </p>
      {SWITCHES.map(([key, word, label]) => (
        <label key={key} className="checkbox">
          <input
            type="checkbox"
            checked={s[key]}
            disabled={busy}
            data-testid={`notify-${word}`}
            onChange={(event) => void run(`notify ${word} ${event.target.checked ? 'on' : 'off'}`)}
          />
          <span className="notify-label">{label}</span>
          {key === 'alerts' ? (
            <select
              aria-label="Alert threshold"
              className="notify-threshold"
              value={s.alert_threshold}
              disabled={busy || !s.alerts}
              data-testid="notify-threshold"
              onChange={(event) => void run(`notify threshold ${event.target.value}`)}
            >
              {THRESHOLDS.map((n) => (
                <option key={n} value={n}>
                  impact ≥ {n}
                </option>
              ))}
            </select>
          ) : null}
        </label>
      ))}
      <label className="checkbox">
        <input
          type="checkbox"
          checked={s.telegram_live_orders}
          disabled={busy}
          data-testid="notify-live-orders"
          onChange={(event) => void run(`notify live-orders ${event.target.checked ? 'on' : 'off'}`)}
        />
        <span className="notify-label">
          Orders on live keys from Telegram (asks to confirm it&apos;s you)
        </span>
      </label>
      {notice === null ? null : (
        <p
          className={`message${notice.ok ? ' success' : ' error'}`}
          role="status"
          data-testid="notifications-notice"
        >
          {notice.text}
        </p>
      )}
    </section>
  );
}
