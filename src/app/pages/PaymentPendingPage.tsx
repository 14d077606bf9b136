import { PageShell } from './PageShell';

export function PaymentPendingPage() {
  return (
    <PageShell title="Waiting for your payment">
      <div className="spinner" role="status" aria-label="Waiting for payment confirmation" />
      <p>We are waiting for the payment provider to confirm your payment.</p>
    </PageShell>
  );
}
