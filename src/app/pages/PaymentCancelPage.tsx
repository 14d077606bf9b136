import { Link } from '../Link';
import { PageShell } from './PageShell';

/** docs/product.md §2 payment cancel: nothing was charged; "Back to Dashboard". */
export function PaymentCancelPage() {
  return (
    <PageShell title="Payment cancelled">
      <p>Your payment was cancelled. Nothing was charged and your plan has not changed.</p>
      <p className="muted">You can upgrade to Premium again at any time from the dashboard.</p>
      <Link to="/" className="button primary">
        Back to Dashboard
      </Link>
    </PageShell>
  );
}
