import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from './AppContext';
import { Dashboard } from './Dashboard';
import { PaymentCancelPage } from './pages/PaymentCancelPage';
import { PaymentPendingPage } from './pages/PaymentPendingPage';
import { PaymentSuccessPage } from './pages/PaymentSuccessPage';
import { ResetPasswordPage } from './pages/ResetPasswordPage';

/** Picks the page for the current route; unknown routes show the dashboard. */
export function App() {
  useSignals();
  const { router } = useServices();
  switch (router.route.value) {
    case 'reset-password':
      return <ResetPasswordPage />;
    case 'payment-success':
      return <PaymentSuccessPage />;
    case 'payment-cancel':
      return <PaymentCancelPage />;
    case 'payment-pending':
      return <PaymentPendingPage />;
    case 'dashboard':
      return <Dashboard />;
  }
}
