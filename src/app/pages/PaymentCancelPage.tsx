import { Link } from '../Link';
import { PageShell } from './PageShell';

export function PaymentCancelPage() {
  return (
    <PageShell title="Payment cancelled">
      <p>Your payment was cancelled.</p>
      <Link to="/" className="button">
        Back to Dashboard
      </Link>
    </PageShell>
  );
}
