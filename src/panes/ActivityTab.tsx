import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { utcStamp } from '../services/time';

/** The account's activity log: what happened, when, and from which device and place. */
export function ActivityTab() {
  useSignals();
  const { stores } = useServices();
  const activity = stores.auth.activity.value;
  return (
    <section className="account-section" aria-label="Activity">
      {activity.status === 'loading' && <p className="message">Loading activity...</p>}
      {activity.status === 'error' && (
        <p className="message error" role="alert">
          {activity.message}
        </p>
      )}
      {activity.status === 'ready' && activity.items.length === 0 && (
        <p className="message">No activity yet.</p>
      )}
      {activity.status === 'ready' && activity.items.length > 0 && (
        <ul className="activity-list" data-testid="activity-list">
          {activity.items.map((e) => (
            <li key={e.id} className={`activity ${e.kind}`} data-kind={e.kind}>
              <time dateTime={e.at}>{utcStamp(e.at)}</time>
              <span className="activity-text">{e.text}</span>
              {e.device !== null && (
                <span className="activity-device">
                  {e.device}
                  {e.place === null ? '' : `, near ${e.place}`}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
