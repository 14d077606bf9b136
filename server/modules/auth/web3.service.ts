import type { Hex, PublicClient } from 'viem';
import { getAddress, verifyMessage } from 'viem/utils';
import { createSiweMessage, generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { NONCE_TTL_MS, WEB3_DETAILS, type NonceResponse, type Wallet } from '../../../src/contracts/web3';
import { appError } from '../../plugins/errors';
import type { CurrentSignIn, IdentityService, IdentitySignIn } from './identity.service';
import type { IdentityRow } from './identities.repo';

export interface SignedMessage {
  address: string;
  signature: string;
  nonce: string;
  chain_id: number;
  message?: string | undefined;
}

export const SIWE_STATEMENT = 'Sign in to Signal Console.';

/**
 * Outstanding nonces one wallet keeps: generous for an owner with a few tabs or retries, and a bound on
 * what anyone asking for that wallet's nonces (from however many addresses) can make the server hold.
 */
export const NONCES_PER_WALLET = 50;

/**
 * Wallet sign-in with EIP-4361 messages: the server writes the message around a single-use nonce (5
 * minutes), then checks what came back (domain, URI, nonce, address, chain, times) and the signature,
 * with viem: offline for ordinary accounts, through the RPC for contract wallets (EIP-1271) when one is
 * configured. The same check guards linking a wallet to a signed-in account.
 */
export class Web3Service {
  private readonly domain: string;
  private readonly uri: string;

  constructor(
    private readonly deps: {
      identities: IdentityService;
      publicUrl: string;
      /** Mainnet client: EIP-1271 signatures and ENS names. */
      rpc: PublicClient | null;
      now?: () => Date;
    },
  ) {
    const url = new URL(deps.publicUrl);
    this.domain = url.host;
    this.uri = url.origin;
  }

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  async nonce(address: string, chainId: number): Promise<NonceResponse> {
    const now = this.now();
    const nonce = generateSiweNonce();
    const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
    const message = createSiweMessage({
      domain: this.domain,
      uri: this.uri,
      address: getAddress(address),
      chainId,
      nonce,
      version: '1',
      statement: SIWE_STATEMENT,
      issuedAt: now,
      expirationTime: expiresAt,
    });
    const repo = this.deps.identities.repo;
    const wallet = address.toLowerCase();
    await repo.purgeNonces(new Date(now.getTime() - NONCE_TTL_MS));
    await repo.insertNonce({ nonce, address: wallet, chainId, message, expiresAt });
    // New nonces are never refused for a wallet (that would let anyone lock its owner out); the oldest
    // give way instead, so an owner who signs within moments of asking is not disturbed.
    await repo.keepNewestNonces(wallet, NONCES_PER_WALLET);
    return { message, nonce };
  }

  /** Checks a signed nonce message and answers the wallet's checksummed address. The nonce is spent. */
  async check(input: SignedMessage): Promise<`0x${string}`> {
    const now = this.now();
    const row = await this.deps.identities.repo.consumeNonce(input.nonce, now);
    if (row === undefined || row.expiresAt <= now || row.address !== input.address.toLowerCase()) {
      throw appError('UNAUTHORIZED', WEB3_DETAILS.badNonce);
    }
    const address = getAddress(input.address);
    const text = input.message ?? row.message;
    const fields = parseSiweMessage(text);
    const valid =
      fields.chainId === input.chain_id &&
      fields.chainId === row.chainId &&
      fields.uri === this.uri &&
      fields.version === '1' &&
      validateSiweMessage({ message: fields, address, domain: this.domain, nonce: row.nonce, time: now }) &&
      (fields.scheme === undefined || `${fields.scheme}://${this.domain}` === this.uri);
    if (!valid) throw appError('UNAUTHORIZED', WEB3_DETAILS.badMessage);
    const signature = input.signature as Hex;
    let ok: boolean;
    try {
      ok =
        this.deps.rpc === null
          ? await verifyMessage({ address, message: text, signature })
          : await this.deps.rpc.verifyMessage({ address, message: text, signature });
    } catch {
      ok = false;
    }
    if (!ok) throw appError('UNAUTHORIZED', WEB3_DETAILS.badSignature);
    return address;
  }

  /** `POST /auth/web3/verify`: the account of the wallet (made on its first sign-in) and its identity. */
  async signIn(input: SignedMessage): Promise<IdentitySignIn> {
    const address = await this.check(input);
    return this.deps.identities.signIn({
      provider: 'wallet',
      subject: address.toLowerCase(),
      verifiedEmail: null,
      usernameHint: `wallet-${address.slice(2, 6)}${address.slice(-4)}`.toLowerCase(),
      chainId: input.chain_id,
      ensName: await this.ensName(address),
    });
  }

  async link(userId: string, input: SignedMessage): Promise<Wallet> {
    const address = await this.check(input);
    const row = await this.deps.identities.link(userId, {
      provider: 'wallet',
      subject: address.toLowerCase(),
      verifiedEmail: null,
      usernameHint: '',
      chainId: input.chain_id,
      ensName: await this.ensName(address),
    });
    return walletOf(row);
  }

  async list(userId: string): Promise<Wallet[]> {
    return (await this.deps.identities.list(userId, 'wallet')).map(walletOf);
  }

  /**
   * Removes a linked wallet when `confirmed` (a recent step-up), with the sign-ins it started but the
   * current one; never the account's last way to sign in.
   */
  unlink(userId: string, id: string, opts: { confirmed: boolean; current: CurrentSignIn }): Promise<void> {
    return this.deps.identities.unlink(userId, 'wallet', id, opts);
  }

  /** The wallet's ENS name when an RPC is configured and resolves one; never fails a sign-in. */
  private async ensName(address: `0x${string}`): Promise<string | null | undefined> {
    if (this.deps.rpc === null) return undefined;
    try {
      return await this.deps.rpc.getEnsName({ address });
    } catch {
      return undefined;
    }
  }
}

export function walletOf(row: IdentityRow): Wallet {
  return {
    id: row.id,
    address: getAddress(row.subject),
    chain_id: row.chainId ?? 1,
    ens_name: row.ensName,
    is_primary: row.isPrimary,
  };
}
