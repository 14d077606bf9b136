import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { THRESHOLD } from '../services/feed/alertSettings';
import { Dialog } from './Dialog';
import { ImpactSlider } from './ImpactSlider';
import { QuickAmountsEditor } from './QuickAmountsEditor';
import './AlertsModal.css';

/** docs/product.md §2 Notifications & Alerts modal: the four settings of docs/product.md §3, and the quick-trade amounts. */
export function AlertsModal() {
  useSignals();
  const { stores } = useServices();
  const alerts = stores.alerts;
  const [message, setMessage] = useState<string | null>(null);
  if (!alerts.modalOpen.value) return null;
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
      <QuickAmountsEditor />
      <button type="button" className="button" onClick={close}>
        Close
      </button>
    </Dialog>
  );
}
