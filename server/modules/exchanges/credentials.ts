import type { KeyEnvironment, KeyWarning } from '../../../src/contracts/exchanges';

/**
 * A key ready for signing, decrypted in memory only for the one call that needs it: the API key, its
 * secret and, on OKX, the passphrase chosen when the key was made (a third secret, sealed like the others).
 */
export interface VenueCredentials {
  apiKey: string;
  secret: string;
  passphrase?: string;
}

/** What a venue said of a key: whether it proved it, what the key may do, and what to warn of. */
export interface KeyCheck {
  status: 'verified' | 'unverified';
  permissions: string[];
  warnings: KeyWarning[];
  canWithdraw: boolean;
}

/**
 * Asks one venue about a key: proves key and secret (and passphrase) with a signed read, and reads what
 * the key may do. A refusal (bad key, bad signature, bad passphrase) throws the venue's ExchangeError; no
 * answer at all, a 5xx or a rate limit yields `status: 'unverified'`; an answer that cannot be read throws
 * VenueAnswerUnreadable (nothing is saved).
 */
export type KeyChecker = (
  environment: KeyEnvironment,
  creds: VenueCredentials,
  now?: number,
) => Promise<KeyCheck>;
