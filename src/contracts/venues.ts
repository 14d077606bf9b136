/**
 * The exchanges a user's key can trade on. Each is a USDT-margined perpetual futures venue: Binance USD-M,
 * Bybit v5 `linear` and OKX v5 `SWAP`. Inside the product a symbol is always Binance's spelling
 * (`BTCUSDT`); each venue's adapter turns it into its own (`BTC-USDT-SWAP` on OKX).
 */
export const VENUES = ['binance', 'bybit', 'okx'] as const;
export type VenueName = (typeof VENUES)[number];

/** The venue's name as a trader reads it. */
export const VENUE_LABELS: Record<VenueName, string> = {
  binance: 'Binance',
  bybit: 'Bybit',
  okx: 'OKX',
};

/** Where an account's orders go: the paper exchange or one of the venues. */
export type AccountVenue = 'paper' | VenueName;

export function venueLabel(venue: AccountVenue): string {
  return venue === 'paper' ? 'Paper' : VENUE_LABELS[venue];
}

/** What a venue's key form asks for and what to set on the venue before saving (the modal's checklist). */
export interface VenueKeyForm {
  /** OKX asks for the passphrase chosen when the key was made: a third secret. */
  passphrase: boolean;
  /** Where the key is made, in words. */
  where: string;
  /** The permissions to set, in order: trade on, withdrawals off, an IP whitelist. */
  checklist: readonly string[];
}

export const VENUE_KEY_FORMS: Record<VenueName, VenueKeyForm> = {
  binance: {
    passphrase: false,
    where: 'Binance → Account → API Management (Demo trading keys: demo.binance.com)',
    checklist: ['Enable Futures', 'Leave Enable Withdrawals off', 'Restrict access to trusted IPs'],
  },
  bybit: {
    passphrase: false,
    where: 'Bybit → Account → API (Demo trading keys: from the Demo Trading account)',
    checklist: [
      'Contract: Orders and Positions (read-write)',
      'Leave Assets → Withdrawal off',
      'Only IPs with permissions granted to access the API',
    ],
  },
  okx: {
    passphrase: true,
    where: 'OKX → Profile → API keys (Demo trading keys: from Demo Trading)',
    checklist: ['Permissions: Read and Trade', 'Leave Withdraw off', 'Link an IP address'],
  },
};
