import { useSignals } from '@preact/signals-react/runtime';
import { useCallback, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { useServices } from '../app/AppContext';
import type { AdminSources, AdminUser, AuditEntry } from '../contracts/billing';
import type { CalibrationView } from '../contracts/calibration';
import { adminApi, describeAudit } from '../services/admin';
import { sourceFigures } from '../services/feed/receipt';
import { formatDay, isActive } from '../services/premium';
import { loadCalibration } from '../services/scorecard/calibration';
import { CalibrationCharts } from './CalibrationCharts';
import { Dialog } from './Dialog';
import './PremiumModals.css';

type Tab = 'users' | 'sources' | 'calibration' | 'audit';
const TABS: { id: Tab; label: string }[] = [
  { id: 'users', label: 'Users' },
  { id: 'sources', label: 'Sources' },
  { id: 'calibration', label: 'Calibration' },
  { id: 'audit', label: 'Audit log' },
];
type Notice = { tone: 'error' | 'success'; text: string } | null;

/**
 * The admin panel (role admin): accounts with their Premium status (grant, revoke), disabling an
 * account, the health of the sources with their ingestion counts, the impact calibration's curves, and
 * the audit log. The `admin` and `analysis calibration` commands make the same calls.
 */
export function AdminPanel() {
  useSignals();
  const { stores, api } = useServices();
  const user = stores.session.user.value;
  const open = stores.premium.adminOpen.value && user?.role === 'admin';
  const calls = useMemo(() => adminApi(api.main), [api.main]);
  const [tab, setTab] = useState<Tab>('users');
  const [users, setUsers] = useState<AdminUser[] | null>(null);
  const [sources, setSources] = useState<AdminSources | null>(null);
  const [audit, setAudit] = useState<AuditEntry[] | null>(null);
  const [calibration, setCalibration] = useState<CalibrationView | null>(null);
  const [days, setDays] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<Notice>(null);

  const load = useCallback(
    async (which: Tab) => {
      if (which === 'sources') {
        const got = await calls.sources();
        if (got.ok) setSources(got.value);
        else setNotice({ tone: 'error', text: got.message });
        return;
      }
      if (which === 'calibration') {
        const got = await loadCalibration(api.main);
        if (got.ok) setCalibration(got.value);
        else setNotice({ tone: 'error', text: got.message });
        return;
      }
      // The audit log names people, so it needs the users too.
      const [listed, log] = await Promise.all([calls.users(), which === 'audit' ? calls.audit() : null]);
      if (listed.ok) setUsers(listed.value);
      else setNotice({ tone: 'error', text: listed.message });
      if (log !== null) {
        if (log.ok) setAudit(log.value);
        else setNotice({ tone: 'error', text: log.message });
      }
    },
    [calls, api.main],
  );

  useEffect(() => {
    if (open) void load(tab);
  }, [open, tab, load]);
  // A notice is about the tab it was made on.
  useEffect(() => setNotice(null), [tab]);

  if (!open) return null;
  const close = () => {
    setNotice(null);
    stores.premium.closeAdmin();
  };
  const names = new Map((users ?? []).map((u) => [u.id, u.username]));

  const act = async (text: string, run: () => Promise<{ ok: boolean; message?: string }>) => {
    const done = await run();
    setNotice(done.ok ? { tone: 'success', text } : { tone: 'error', text: done.message ?? 'Failed.' });
    await load('users');
  };
  const grant = (u: AdminUser) => {
    const n = Number(days[u.id] ?? '30');
    if (!Number.isInteger(n) || n < 1 || n > 3650) {
      setNotice({ tone: 'error', text: 'Days: a whole number from 1 to 3650.' });
      return;
    }
    void act(`Premium granted to ${u.username} for ${n} days.`, () => calls.setPremium(u.id, true, n));
  };

  // Arrow keys move between the tabs, as in any tab list; Tab moves on into the panel.
  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const at = TABS.findIndex((t) => t.id === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = TABS[(at + step + TABS.length) % TABS.length];
    if (next === undefined) return;
    setTab(next.id);
    document.getElementById(`admin-tab-${next.id}`)?.focus();
  };

  return (
    <Dialog label="Admin Panel" onClose={close} className="admin-panel" testId="admin-panel">
      <div className="modal-title-row">
        <h2>Admin Panel</h2>
        <button type="button" className="button" onClick={close} aria-label="Close">
          ✕
        </button>
      </div>
      <div className="tabs" role="tablist" aria-label="Admin sections">
        {TABS.map((t) => (
          <button
            key={t.id}
            id={`admin-tab-${t.id}`}
            type="button"
            role="tab"
            className={tab === t.id ? 'tab active' : 'tab'}
            aria-selected={tab === t.id}
            aria-controls="admin-tabpanel"
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
          </button>
        ))}
      </div>
      {notice !== null && (
        <p
          className={`message ${notice.tone}`}
          role={notice.tone === 'error' ? 'alert' : 'status'}
          data-testid="admin-notice"
        >
          {notice.text}
        </p>
      )}
      <div id="admin-tabpanel" role="tabpanel" aria-labelledby={`admin-tab-${tab}`} className="admin-body">
        {tab === 'users' &&
          (users === null ? (
            <p className="muted">Loading users...</p>
          ) : (
            <div className="table-scroll">
              <table className="admin-table">
                <thead>
                  <tr>
                    <th>User</th>
                    <th>Role</th>
                    <th>Premium</th>
                    <th>Account</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((u) => {
                    const premium = isActive(u.subscription.status);
                    const end = formatDay(u.subscription.current_period_end);
                    const self = u.id === user.id;
                    return (
                      <tr key={u.id} data-testid="admin-user-row" data-username={u.username}>
                        <td>
                          <div className="admin-user">{u.username}</div>
                          <div className="muted small">{u.email ?? 'no e-mail'}</div>
                        </td>
                        <td data-label="Role">{u.role}</td>
                        <td data-testid="admin-user-plan" data-label="Premium">
                          {premium ? `Premium until ${end ?? '—'}` : `Free (${u.subscription.status})`}
                        </td>
                        <td data-label="Account">
                          {u.disabled ? <span className="danger-text">Disabled</span> : 'Enabled'}
                        </td>
                        <td>
                          <div className="admin-actions">
                            <label className="days-field">
                              <span className="sr-only">Days of Premium for {u.username}</span>
                              <input
                                type="number"
                                min={1}
                                max={3650}
                                value={days[u.id] ?? '30'}
                                onChange={(e) => {
                                  const value = e.currentTarget.value;
                                  setDays((d) => ({ ...d, [u.id]: value }));
                                }}
                              />
                              <span aria-hidden="true">days</span>
                            </label>
                            <button
                              type="button"
                              className="button small primary"
                              onClick={() => grant(u)}
                              aria-label={`Grant Premium to ${u.username}`}
                            >
                              Grant
                            </button>
                            <button
                              type="button"
                              className="button small"
                              disabled={!premium}
                              onClick={() =>
                                void act(`Premium revoked for ${u.username}.`, () =>
                                  calls.setPremium(u.id, false),
                                )
                              }
                              aria-label={`Revoke Premium of ${u.username}`}
                            >
                              Revoke
                            </button>
                            <button
                              type="button"
                              className="button small danger"
                              disabled={self}
                              onClick={() =>
                                void act(`${u.username} ${u.disabled ? 'enabled' : 'disabled'}.`, () =>
                                  calls.setDisabled(u.id, !u.disabled),
                                )
                              }
                              aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.username}`}
                            >
                              {u.disabled ? 'Enable' : 'Disable'}
                            </button>
                          </div>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          ))}
        {tab === 'sources' &&
          (sources === null ? (
            <p className="muted">Loading sources...</p>
          ) : (
            <div className="admin-sources">
              <p data-testid="admin-health">
                Server <strong>{sources.health.status}</strong> · database {sources.health.db}{' '}
                {sources.health.dbOk ? 'ok' : 'down'} · bus {sources.health.bus}{' '}
                {sources.health.busOk ? 'ok' : 'down'} · analyzer {sources.health.analyzer} · market{' '}
                {sources.health.market}
              </p>
              {sources.health.degraded.length > 0 && (
                <p className="form-error" data-testid="admin-degraded">
                  Degraded: {sources.health.degraded.join('; ')}
                </p>
              )}
              <p className="muted">Sources: {sources.health.news.join(', ') || 'none'}</p>
              <div className="table-scroll">
                <table className="admin-table">
                  <thead>
                    <tr>
                      <th>Source</th>
                      <th>Signals</th>
                      <th>Last 24 h</th>
                      <th>Lag p50 / p95</th>
                      <th>Items/h</th>
                      <th>Last item</th>
                      <th>Plan</th>
                    </tr>
                  </thead>
                  <tbody>
                    {sources.ingestion.map((c) => {
                      const figures = sourceFigures(
                        sources.receipts?.sources.find((r) => r.name === c.source),
                      );
                      return (
                        <tr key={c.source} data-testid="admin-source-row">
                          <td className="admin-user">{c.source}</td>
                          <td data-label="Signals">{c.total}</td>
                          <td data-label="Last 24 h">{c.last_24h}</td>
                          <td data-label="Lag p50 / p95">{figures.lag}</td>
                          <td data-label="Items/h">{figures.perHour}</td>
                          <td data-label="Last item">{figures.last}</td>
                          <td data-label="Plan">{c.premium ? 'Premium only' : 'Everyone'}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            </div>
          ))}
        {tab === 'calibration' &&
          (calibration === null ? (
            <p className="muted">Loading the calibration...</p>
          ) : (
            <CalibrationCharts view={calibration} />
          ))}
        {tab === 'audit' &&
          (audit === null ? (
            <p className="muted">Loading the audit log...</p>
          ) : audit.length === 0 ? (
            <p className="muted">The audit log is empty.</p>
          ) : (
            <ol className="audit-list">
              {audit.map((e) => (
                <li key={e.id} data-testid="audit-row">
                  <time dateTime={e.created_at}>{e.created_at.slice(0, 19).replace('T', ' ')}</time>{' '}
                  {describeAudit(e, names)}
                </li>
              ))}
            </ol>
          ))}
      </div>
    </Dialog>
  );
}
