import { useSignals } from '@preact/signals-react/runtime';
import { WALLET_CHAIN_NAMES, shortAddress } from '../contracts/web3';
import { useServices } from '../app/AppContext';
import { FormNotice } from './FormNotice';

/** docs/product.md §2 Connected Wallets: each wallet's short address, chain, ENS name and primary mark; link and unlink. */
export function WalletsTab() {
  useSignals();
  const { stores, auth } = useServices();
  const wallets = stores.auth.wallets.value;
  const busy = stores.auth.busy.value.has('wallets');
  return (
    <section className="account-section" aria-label="Connected Wallets">
      {wallets.status === 'loading' && <p className="message">Loading wallets...</p>}
      {wallets.status === 'error' && (
        <p className="message error" role="alert">
          {wallets.message}
        </p>
      )}
      {wallets.status === 'ready' && wallets.items.length === 0 && (
        <p className="message">No wallets linked yet.</p>
      )}
      {wallets.status === 'ready' && wallets.items.length > 0 && (
        <ul className="device-list" data-testid="wallet-list">
          {wallets.items.map((w) => (
            <li key={w.id} className="device" data-testid="wallet">
              <span className="device-name">
                <code title={w.address}>{shortAddress(w.address)}</code>
                {w.is_primary && <span className="badge"> Primary</span>}
              </span>
              <span className="device-used">
                {WALLET_CHAIN_NAMES[w.chain_id] ?? `Chain ${w.chain_id}`}
                {w.ens_name !== null && ` · ${w.ens_name}`}
              </span>
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() => void auth.account.unlinkWallet(w.id)}
              >
                Unlink
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        className="button primary"
        disabled={busy}
        onClick={() => void auth.account.linkWallet()}
      >
        Link Wallet
      </button>
      <FormNotice notice={stores.auth.notices.value.wallets} testId="wallets-notice" />
    </section>
  );
}
