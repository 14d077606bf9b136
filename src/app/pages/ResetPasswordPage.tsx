import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useState } from 'react';
import { FormNotice } from '../../panes/FormNotice';
import { AUTH_TEXT } from '../../services/auth/messages';
import { useServices } from '../AppContext';
import { Link } from '../Link';
import { PageShell } from './PageShell';

/** docs/product.md §2 /reset-password?token=…: a new password twice; success goes to "/" after 3 s. */
export function ResetPasswordPage() {
  useSignals();
  const { router, stores, auth } = useServices();
  const token = router.query('token');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const busy = stores.auth.busy.value.has('reset');
  const notice = stores.auth.notices.value.reset;
  const done = notice?.tone === 'success';

  useEffect(() => () => auth.resetPage.dispose(), [auth]);

  return (
    <PageShell title="Reset Password">
      {token === null || token === '' ? (
        <div className="message error" role="alert" data-testid="reset-no-token">
          <p>{AUTH_TEXT.noResetToken}</p>
          <p>{AUTH_TEXT.resetTokenMissing}</p>
        </div>
      ) : (
        <form
          className="auth-form"
          onSubmit={(event) => {
            event.preventDefault();
            void auth.resetPage.submit(token, password, confirm);
          }}
        >
          <label className="field wide">
            <span>New password</span>
            <input
              type="password"
              autoComplete="new-password"
              value={password}
              disabled={busy || done}
              required
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
          </label>
          <label className="field wide">
            <span>Confirm new password</span>
            <input
              type="password"
              autoComplete="new-password"
              value={confirm}
              disabled={busy || done}
              required
              onChange={(event) => setConfirm(event.currentTarget.value)}
            />
          </label>
          <button type="submit" className="button primary" disabled={busy || done}>
            Reset Password
          </button>
        </form>
      )}
      <FormNotice notice={notice} testId="reset-notice" />
      {done && <p className="message">Redirecting to the dashboard…</p>}
      <Link to="/" className="button">
        Back to Dashboard
      </Link>
    </PageShell>
  );
}
