import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { UNLINK_WALLETS_OFFER } from '../contracts/auth';
import { useServices } from '../app/AppContext';
import { utcStamp } from '../services/time';
import { FormNotice } from './FormNotice';

/**
 * Remembered devices: each with its browser, OS, approximate place (from its time zone), a fingerprint
 * cut to 8 characters and when it was last seen; this browser's is marked.
 */
export function DevicesTab() {
  useSignals();
  const { stores, auth } = useServices();
  const devices = stores.auth.devices.value;
  const busy = stores.auth.busy.value.has('devices');
  const [unlinkWallets, setUnlinkWallets] = useState(false);
  return (
    <section className="account-section" aria-label="Remembered Devices">
      {devices.status === 'loading' && <p className="message">Loading devices...</p>}
      {devices.status === 'error' && (
        <p className="message error" role="alert">
          {devices.message}
        </p>
      )}
      {devices.status === 'ready' && devices.items.length === 0 && (
        <p className="message">No remembered devices.</p>
      )}
      {devices.status === 'ready' && devices.items.length > 0 && (
        <ul className="device-list" data-testid="device-list">
          {devices.items.map((d) => (
            <li key={d.id} className="device">
              <span className="device-name">
                {d.device_info.browser} on {d.device_info.os}
                {d.is_current && <span className="badge"> This device</span>}
              </span>
              <code className="device-fingerprint">{d.device_fingerprint.slice(0, 8)}</code>
              {d.device_info.place !== undefined && (
                <span className="device-place">Near {d.device_info.place}</span>
              )}
              <span className="device-used">Last seen {utcStamp(d.last_used_at)}</span>
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() => void auth.account.removeDevice(d.id)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <label className="check">
        <input
          type="checkbox"
          data-testid="revoke-unlink-wallets"
          checked={unlinkWallets}
          disabled={busy}
          onChange={(event) => setUnlinkWallets(event.currentTarget.checked)}
        />
        {UNLINK_WALLETS_OFFER}
      </label>
      <button
        type="button"
        className="button sell"
        disabled={busy || devices.status !== 'ready' || (devices.items.length === 0 && !unlinkWallets)}
        onClick={() => void auth.account.revokeAllDevices(unlinkWallets)}
      >
        Revoke All Devices
      </button>
      <FormNotice notice={stores.auth.notices.value.devices} testId="devices-notice" />
    </section>
  );
}
