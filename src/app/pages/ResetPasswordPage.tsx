import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../AppContext';
import { Link } from '../Link';
import { PageShell } from './PageShell';

export function ResetPasswordPage() {
  useSignals();
  const { router } = useServices();
  const token = router.query('token');
  return (
    <PageShell title="Reset Password">
      {token === null || token === '' ? (
        <p className="message error" role="alert">
          No reset token found. Please request a new password reset link.
        </p>
      ) : (
        <p className="message">Setting a new password is not available in this build yet.</p>
      )}
      <Link to="/" className="button">
        Back to Dashboard
      </Link>
    </PageShell>
  );
}
