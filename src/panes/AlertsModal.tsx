import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { useServices } from '../app/AppContext';
import { THRESHOLD } from '../services/feed/alertSettings';
import { PUSH_UNSUPPORTED, loadNotifications } from '../services/notifications';
import { Dialog } from './Dialog';
import { ImpactSlider } from './ImpactSlider';
import { QuickAmountsEditor } from './QuickAmountsEditor';
import { QuickBracketEditor } from './QuickBracketEditor';
import './AlertsModal.css';

/** docs/product.md §2 Notifications & Alerts modal: the four settings of docs/product.md §3, and the quick-trade amounts. */
export function AlertsModal() {
  useSignals();
  const { stores, api, terminal } = useServices();
  const alerts = stores.alerts;
  const push = stores.notifications;
  const [message, setMessage] = useState<string | null>(null);
  const [pushMessage, setPushMessage] = useState<string | null>(null);
  const [pushBusy, setPushBusy] = useState(false);
  const open = alerts.modalOpen.value;
  const loggedIn = stores.session.isLoggedIn.value;
  useEffect(() => {
    if (open && loggedIn) void loadNotifications(api.main, push);
  }, [open, loggedIn, api, push]);
  if (!open) return null;
  const unsupported = push.port.support();
  const serverOff = push.state.value !== null && !push.state.value.push.configured;
  const setPush = async (on: boolean): Promise<void> => {
    setPushBusy(true);
    // The same command as `notify push on|off` in the terminal.
    const lines = await terminal.execute(`notify push ${on ? 'on' : 'off'}`, 'ui');
    setPushBusy(false);
    setPushMessage(lines.map((l) => l.text).join(' ') || null);
  };
  const s = alerts.settings.value;
  const close = (): void => {
    setMessage(null);
    alerts.closeModal();
  };
  return (
    <Dialog label="Notifications & Alerts" className="alerts-modal" onClose={close}>
      <h2>Notifications &amp; Alerts</h2>
      <section className="alerts-section" aria-label="Alerts">
        <label className="check">
          <input
            type="checkbox"
            checked={s.enableVisualHighlights}
            onChange={(event) => alerts.update({ enableVisualHighlights: event.target.checked })}
          />
          Highlight high-impact cards
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={s.isSoundEnabled}
            onChange={(event) => alerts.update({ isSoundEnabled: event.target.checked })}
          />
          Play a sound
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={s.isNotificationEnabled}
            onChange={(event) => {
              void alerts.setNotifications(event.target.checked).then((r) => setMessage(r.message));
            }}
          />
          Browser notifications
        </label>
        <ImpactSlider
          label="Impact threshold"
          className="threshold"
          range={THRESHOLD}
          value={s.notificationImpactThreshold}
          onChange={(value) => alerts.update({ notificationImpactThreshold: value })}
          valueTestId="threshold"
        />
        {message === null ? null : (
          <p className="alerts-message" role="status" data-testid="alerts-message">
            {message}
          </p>
        )}
      </section>
      <section className="alerts-section" aria-label="Push">
        <label className="check">
          <input
            type="checkbox"
            data-testid="push-toggle"
            checked={push.pushHere.value === true}
            disabled={pushBusy || !loggedIn}
            onChange={(event) => void setPush(event.target.checked)}
          />
          Push to this browser when the tab is closed
        </label>
        <p className="alerts-message" role="status" data-testid="push-message">
          {pushMessage ??
            (!loggedIn
              ? 'Sign in to get notes in this browser when the tab is closed.'
              : unsupported !== null && unsupported !== 'denied'
                ? PUSH_UNSUPPORTED[unsupported]
                : serverOff
                  ? 'This server cannot send Web Push.'
                  : 'Alerts, fills and warnings you chose in Account → Notifications.')}
        </p>
      </section>
      <QuickAmountsEditor />
      <QuickBracketEditor />
      <button type="button" className="button" onClick={close}>
        Close
      </button>
    </Dialog>
  );
}
