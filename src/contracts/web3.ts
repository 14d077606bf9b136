import { z } from 'zod';
import { decimal } from './numbers';

/**
 * Wallet sign-in (SIWE, EIP-4361) and linked wallets (docs/product.md §3 Wallet, §7 `/auth/web3/*`), shared by the
 * server routes and the browser client.
 */

/** The five chains a wallet may sign in from: Ethereum, Base, Arbitrum One, OP Mainnet, Polygon. */
export const WALLET_CHAIN_IDS = [1, 8453, 42161, 10, 137] as const;
export const WALLET_CHAIN_NAMES: Record<number, string> = {
  1: 'Ethereum',
  8453: 'Base',
  42161: 'Arbitrum',
  10: 'Optimism',
  137: 'Polygon',
};

/** How long a nonce (and the message carrying it) can be signed. */
export const NONCE_TTL_MS = 5 * 60 * 1000;

const address = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'Enter a 0x address of 40 hex digits.' });
const chainId = decimal(
  z
    .number()
    .int()
    .refine((id) => (WALLET_CHAIN_IDS as readonly number[]).includes(id), {
      error: `Supported chains: ${WALLET_CHAIN_IDS.join(', ')}.`,
    }),
);
const signature = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]+$/, { error: 'A signature is 0x and hex digits.' })
  .max(4096);
const nonce = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{8,96}$/, { error: 'Invalid nonce.' });

export const NonceRequest = z.object({ address, chain_id: chainId.optional().default(1) });
export type NonceRequest = z.input<typeof NonceRequest>;

export const NonceResponse = z.object({ message: z.string(), nonce: z.string() });
export type NonceResponse = z.infer<typeof NonceResponse>;

/** The wallet's answer: the signature of the message `nonce` returned (or of `message`, when sent). */
const signed = {
  address,
  signature,
  nonce,
  chain_id: chainId.optional().default(1),
  /** The exact text signed; the server's own message for the nonce when left out. */
  message: z.string().max(4096).optional(),
};

export const VerifyRequest = z.object({
  ...signed,
  remember_me: z.boolean().optional().default(false),
  device_info: z
    .object({
      browser: z.string().trim().min(1).max(64),
      os: z.string().trim().min(1).max(64),
      user_agent: z.string().max(512).optional(),
    })
    .optional(),
});
export type VerifyRequest = z.input<typeof VerifyRequest>;

export const LinkRequest = z.object(signed);
export type LinkRequest = z.input<typeof LinkRequest>;

/** docs/product.md §3 Wallet. */
export const Wallet = z.object({
  id: z.string(),
  address: z.string(),
  chain_id: z.number().int(),
  ens_name: z.string().nullable(),
  is_primary: z.boolean(),
});
export type Wallet = z.infer<typeof Wallet>;
export const WalletList = z.array(Wallet);

export const WalletParams = z.object({ id: z.uuid({ error: 'Wallet not found.' }) });

export const WEB3_DETAILS = {
  badNonce: 'Invalid or expired nonce. Please sign in again.',
  badMessage: 'The signed message is not valid for this site.',
  badSignature: 'Invalid wallet signature.',
  linkedElsewhere: 'This wallet is linked to another account.',
  alreadyLinked: 'This wallet is already linked to your account.',
  walletNotFound: 'Wallet not found.',
  lastMethod: 'This is your only way to sign in: set a password or link another sign-in first.',
  providerOff: (name: string) => `${name} sign-in is not configured on this server.`,
  oauthState: 'Sign-in expired or was started in another browser. Please try again.',
  oauthFailed: 'Sign-in with the provider failed. Please try again.',
} as const;

export const WEB3_MESSAGES = {
  linked: 'Wallet linked.',
  unlinked: 'Wallet unlinked.',
} as const;

/** The browser's fallback texts (docs/product.md §8). */
export const WALLET_UI = {
  loadFailed: 'Failed to load wallets.',
  linkFailed: 'Failed to link wallet',
  unlinkFailed: 'Failed to unlink wallet.',
  authFailed: 'Web3 authentication failed',
} as const;

/** Which social sign-ins this server offers (`GET /auth/providers`): the browser hides the others. */
export const ProvidersResponse = z.object({ google: z.boolean(), twitter: z.boolean() });
export type ProvidersResponse = z.infer<typeof ProvidersResponse>;

/** `0x1234…abcd`: the first 6 and last 4 characters (docs/product.md §9). */
export function shortAddress(address: string): string {
  return address.length <= 10 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`;
}
