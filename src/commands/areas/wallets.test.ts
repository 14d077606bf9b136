import { verifyMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { WALLET_UI } from '../../contracts/web3';
import { NO_WALLET, type Eip1193 } from '../../services/auth/wallet';
import { createTestConsole } from '../testing/scripted';

const account = privateKeyToAccount(generatePrivateKey());
const ME = {
  id: 'u1',
  email: null,
  username: 'wallet-user',
  role: 'user',
  subscription: { status: 'inactive' },
  is_two_factor_enabled: false,
};
const WALLET = {
  id: '3f2a9c1d-0000-4000-8000-000000000001',
  address: account.address,
  chain_id: 8453,
  ens_name: 'ann.eth',
  is_primary: true,
};

/** An injected EIP-1193 wallet on Base whose key is a viem local account. */
function injectWallet(): string[] {
  const calls: string[] = [];
  const provider: Eip1193 = {
    async request({ method, params }) {
      calls.push(method);
      if (method === 'eth_requestAccounts') return [account.address];
      if (method === 'eth_chainId') return '0x2105';
      if (method === 'personal_sign') {
        const [hex] = params as [`0x${string}`];
        return account.signMessage({ message: { raw: hex } });
      }
      throw new Error(`unexpected ${method}`);
    },
  };
  (globalThis as { ethereum?: Eip1193 }).ethereum = provider;
  return calls;
}

/** The server's side: a message per nonce, and a real signature check on verify and link. */
function siweServer(s: ReturnType<typeof createTestConsole>) {
  const message = `127.0.0.1 wants you to sign in with your Ethereum account:\n${account.address}\n\nNonce: abcdefgh1234`;
  s.server.on('POST /auth/web3/nonce', (r) => {
    expect(JSON.parse(r.body ?? '{}')).toEqual({ address: account.address, chain_id: 8453 });
    return { status: 200, body: { message, nonce: 'abcdefgh1234' } };
  });
  const checked = async (body: string | null) => {
    const b = JSON.parse(body ?? '{}') as { signature: `0x${string}`; nonce: string };
    return (
      b.nonce === 'abcdefgh1234' &&
      (await verifyMessage({ address: account.address, message, signature: b.signature }))
    );
  };
  s.server.on('POST /auth/web3/verify', async (r) =>
    (await checked(r.body))
      ? { status: 200, body: { access_token: 'wallet-token', token_type: 'bearer' } }
      : { status: 401, body: { detail: 'Invalid wallet signature.' } },
  );
  s.server.on('POST /auth/web3/wallets/link', async (r) =>
    (await checked(r.body)) ? { status: 201, body: WALLET } : { status: 401, body: { detail: 'bad' } },
  );
  s.server.on('GET /users/me', () => ({ status: 200, body: ME }));
}

afterEach(() => {
  delete (globalThis as { ethereum?: Eip1193 }).ethereum;
});

describe('wallet commands', () => {
  it('login wallet signs the server message with the injected wallet and starts a session', async () => {
    const s = createTestConsole();
    const calls = injectWallet();
    siweServer(s);
    expect(await s.type('login wallet')).toEqual(['success: Logged in as wallet-user.']);
    expect(calls).toEqual(['eth_requestAccounts', 'eth_chainId', 'personal_sign']);
    expect(s.stores.session.isLoggedIn.value).toBe(true);
    expect(s.stores.auth.walletSignIn.value).toBe('idle');
  });

  it('login wallet without a wallet, or with a refused signature, says so and stays logged out', async () => {
    const s = createTestConsole();
    expect(await s.type('login wallet')).toEqual([`error: ${NO_WALLET}`]);
    injectWallet();
    s.server.on('POST /auth/web3/nonce', () => ({
      status: 200,
      body: { message: 'x', nonce: 'abcdefgh1234' },
    }));
    s.server.on('POST /auth/web3/verify', () => ({ status: 500, body: 'oops' }));
    expect(await s.type('login wallet')).toEqual([`error: ${WALLET_UI.authFailed}`]);
    expect(s.stores.session.isLoggedIn.value).toBe(false);
    expect(s.stores.auth.walletSignIn.value).toBe('idle');
  });

  it('wallets lists, wallet link links, wallet rm unlinks by id prefix', async () => {
    const s = createTestConsole({ token: 'tok' });
    injectWallet();
    siweServer(s);
    s.server.on('GET /auth/web3/wallets', () => ({ status: 200, body: [WALLET] }));
    const short = `${account.address.slice(0, 6)}…${account.address.slice(-4)}`;
    expect(await s.type('wallets')).toEqual([`info: 3f2a9c1d  ${short}  Base  ann.eth  (primary)`]);
    expect(await s.type('wallet link')).toEqual(['success: Wallet linked.']);
    s.server.on('DELETE /auth/web3/wallets/3f2a9c1d-0000-4000-8000-000000000001', () => ({
      status: 200,
      body: { message: 'Wallet unlinked.' },
    }));
    expect(await s.type('wallet rm 3f2a')).toEqual(['success: Wallet unlinked.']);
    expect(await s.type('wallet rm ffff')).toEqual(['error: No wallet ffff.']);
  });

  it('shows the spec texts when the wallets cannot be loaded or a wallet cannot be unlinked', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('GET /auth/web3/wallets', () => ({ status: 500, body: 'x' }));
    expect(await s.type('wallets')).toEqual([`error: ${WALLET_UI.loadFailed}`]);
    s.server.on('GET /auth/web3/wallets', () => ({ status: 200, body: [WALLET] }));
    s.server.on('DELETE /auth/web3/wallets/3f2a9c1d-0000-4000-8000-000000000001', () => ({ status: 500 }));
    expect(await s.type('wallet rm 3f2a9c1d')).toEqual([`error: ${WALLET_UI.unlinkFailed}`]);
    expect(s.stores.auth.wallets.value.status).toBe('ready');
  });
});
