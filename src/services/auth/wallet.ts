import {
  NonceResponse,
  WALLET_UI,
  Wallet,
  WalletList,
  type LinkRequest,
  type VerifyRequest,
} from '../../contracts/web3';
import { AccessTokenResponse, LoginResponse, MessageResponse } from '../../contracts/auth';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import type { AuthDeps, LoginOutcome, Outcome } from './flows';
import { AUTH_TEXT } from './messages';
import { beginSession } from './session';

/** The part of an EIP-1193 provider (an injected wallet, or the wallet kit's connector) we use. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** A connected wallet: its address and chain, and a way to sign a text (EIP-191 personal_sign). */
export interface WalletSigner {
  /** Whether the wallet already shares an account with this site (asks nothing). */
  isConnected(): Promise<boolean>;
  connect(): Promise<{ address: string; chainId: number }>;
  signMessage(address: string, message: string): Promise<string>;
}

export const NO_WALLET = 'No wallet found in this browser. Install a wallet extension (e.g. MetaMask).';

const toHex = (text: string): string =>
  `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** A signer over an EIP-1193 provider: `eth_requestAccounts`, `eth_chainId`, `personal_sign`. */
export function eip1193Signer(provider: Eip1193): WalletSigner {
  return {
    async isConnected() {
      try {
        const accounts = (await provider.request({ method: 'eth_accounts' })) as string[];
        return accounts.length > 0;
      } catch {
        return false;
      }
    },
    async connect() {
      const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
      const address = accounts[0];
      if (address === undefined) throw new Error('No address or chain ID found');
      const chain = (await provider.request({ method: 'eth_chainId' })) as string;
      return { address, chainId: Number.parseInt(chain, 16) };
    },
    async signMessage(address, message) {
      return (await provider.request({
        method: 'personal_sign',
        params: [toHex(message), address],
      })) as string;
    },
  };
}

/** The wallet this browser has injected (`window.ethereum`), or null. */
export function injectedSigner(): WalletSigner | null {
  const provider = (globalThis as { ethereum?: Eip1193 }).ethereum;
  return provider === undefined ? null : eip1193Signer(provider);
}

/** One typed call per `/auth/web3/*` route. */
export function createWalletClient(main: ApiClient) {
  const post = { method: 'POST' } as const;
  return {
    nonce: (address: string, chainId: number) =>
      main.call(NonceResponse, '/auth/web3/nonce', { ...post, body: { address, chain_id: chainId } }),
    verify: (body: VerifyRequest) =>
      main.call(LoginResponse, '/auth/web3/verify', { ...post, body: { ...body } }),
    list: () => main.call(WalletList, '/auth/web3/wallets'),
    link: (body: LinkRequest) => main.call(Wallet, '/auth/web3/wallets/link', { ...post, body: { ...body } }),
    unlink: (id: string) =>
      main.call(MessageResponse, `/auth/web3/wallets/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  };
}

/** Connects, asks the server for a message, and has the wallet sign it. */
async function signNonce(main: ApiClient, signer: WalletSigner, onSigning?: () => void) {
  const { address, chainId } = await signer.connect();
  const { message, nonce } = await createWalletClient(main).nonce(address, chainId);
  onSigning?.();
  const signature = await signer.signMessage(address, message);
  return { address, signature, nonce, chain_id: chainId };
}

/** docs/product.md §4 wallet sign-in: idle → signing → verifying; idle again whatever the end. */
export async function walletLogin(
  deps: AuthDeps,
  signer: WalletSigner | null,
  rememberMe: boolean,
): Promise<LoginOutcome> {
  if (signer === null) return { ok: false, message: NO_WALLET };
  const { auth } = deps.stores;
  try {
    const signed = await signNonce(deps.main, signer, () => auth.setWalletSignIn('signing'));
    auth.setWalletSignIn('verifying');
    const answer = await createWalletClient(deps.main).verify({
      ...signed,
      remember_me: rememberMe,
      ...(deps.deviceInfo === undefined ? {} : { device_info: deps.deviceInfo }),
    });
    if ('two_factor_required' in answer) {
      auth.setPendingTwoFactor({ userId: answer.user_id });
      return { ok: 'two-factor', userId: answer.user_id };
    }
    const token = AccessTokenResponse.parse(answer).access_token;
    return (await beginSession(deps.main, deps.stores.session, token))
      ? { ok: true }
      : { ok: false, message: AUTH_TEXT.loadUserFailed };
  } catch (error) {
    return { ok: false, message: errorMessage(error, WALLET_UI.authFailed) };
  } finally {
    auth.setWalletSignIn('idle');
  }
}

export async function loadWallets(deps: AuthDeps): Promise<Outcome> {
  const { auth } = deps.stores;
  auth.setWallets({ status: 'loading' });
  try {
    auth.setWallets({ status: 'ready', items: await createWalletClient(deps.main).list() });
    return { ok: true };
  } catch {
    auth.setWallets({ status: 'error', message: WALLET_UI.loadFailed });
    return { ok: false, message: WALLET_UI.loadFailed };
  }
}

export async function linkWallet(deps: AuthDeps, signer: WalletSigner | null): Promise<Outcome> {
  if (signer === null) return { ok: false, message: NO_WALLET };
  try {
    const signed = await signNonce(deps.main, signer);
    await createWalletClient(deps.main).link(signed);
    await loadWallets(deps);
    return { ok: true, message: 'Wallet linked.' };
  } catch (error) {
    return { ok: false, message: errorMessage(error, WALLET_UI.linkFailed) };
  }
}

export async function unlinkWallet(deps: AuthDeps, id: string): Promise<Outcome> {
  try {
    const { message } = await createWalletClient(deps.main).unlink(id);
    await loadWallets(deps);
    return { ok: true, message };
  } catch (error) {
    return { ok: false, message: errorMessage(error, WALLET_UI.unlinkFailed) };
  }
}

/**
 * The wallet kit's authentication adapter, on our SIWE flow: `prepare` asks the server for the message
 * of the connected address (the kit shows it to sign), `verify` sends the signature back and starts the
 * session. The states follow docs/product.md §4 (signing → verifying → idle).
 */
export function kitSignIn(deps: AuthDeps, rememberMe: () => boolean) {
  let pending: { address: string; chainId: number; nonce: string } | null = null;
  const { auth } = deps.stores;
  return {
    async prepare(address: string, chainId: number): Promise<string> {
      const { message, nonce } = await createWalletClient(deps.main).nonce(address, chainId);
      pending = { address, chainId, nonce };
      auth.setWalletSignIn('signing');
      return message;
    },
    async verify(message: string, signature: string): Promise<LoginOutcome> {
      if (pending === null) return { ok: false, message: WALLET_UI.authFailed };
      const { address, chainId, nonce } = pending;
      pending = null;
      auth.setWalletSignIn('verifying');
      try {
        const answer = await createWalletClient(deps.main).verify({
          address,
          signature,
          nonce,
          chain_id: chainId,
          message,
          remember_me: rememberMe(),
          ...(deps.deviceInfo === undefined ? {} : { device_info: deps.deviceInfo }),
        });
        if ('two_factor_required' in answer) {
          auth.setPendingTwoFactor({ userId: answer.user_id });
          return { ok: 'two-factor', userId: answer.user_id };
        }
        return (await beginSession(deps.main, deps.stores.session, answer.access_token))
          ? { ok: true }
          : { ok: false, message: AUTH_TEXT.loadUserFailed };
      } catch (error) {
        return { ok: false, message: errorMessage(error, WALLET_UI.authFailed) };
      } finally {
        auth.setWalletSignIn('idle');
      }
    },
    cancel(): void {
      pending = null;
      auth.setWalletSignIn('idle');
    },
  };
}
