import { Link } from '../Link';
import { PageShell } from './PageShell';

export function PaymentSuccessPage() {
  return (
    <PageShell title="Payment received">
      <p>Thank you for your payment.</p>
      <Link to="/" className="button">
        Go to Dashboard
      </Link>
    </PageShell>
  );
}
