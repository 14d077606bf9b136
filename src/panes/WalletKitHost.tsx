import { useSignals } from '@preact/signals-react/runtime';
import { Suspense, lazy } from 'react';
import { useServices } from '../app/AppContext';

/** The wallet kit is loaded only when a wallet action opens it (it is a large download). */
const WalletKit = lazy(() => import('../app/walletKit/WalletKit'));

export function WalletKitHost() {
  useSignals();
  const { stores, auth } = useServices();
  if (!stores.auth.walletKitOpen.value) return null;
  return (
    <Suspense fallback={<p className="message">Loading wallets...</p>}>
      <WalletKit {...auth.modal.walletKit} />
    </Suspense>
  );
}
