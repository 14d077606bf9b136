import type { AccountMode, Balance } from '../../contracts/trading';
import { VENUE_LABELS, venueLabel, type AccountVenue, type VenueName } from '../../contracts/venues';

/**
 * An account by its venue and mode, in the words every surface uses: the header chip, the prompt's tag,
 * the line under a fill, the first order's question, the trade history. A key trades on one venue, so
 * naming the mode alone ("LIVE") would leave the trader guessing which exchange holds the funds.
 */
export interface NamedAccount {
  venue: AccountVenue;
  mode: AccountMode;
}

export const MODE_WORDS = { paper: 'PAPER', live: 'LIVE', demo: 'DEMO' } as const satisfies Record<
  AccountMode,
  string
>;

/** The paper exchange, whichever field says so (the server sends both as `paper` together). */
export const isPaper = (a: NamedAccount): boolean => a.venue === 'paper' || a.mode === 'paper';

/** `Bybit LIVE`, `OKX DEMO`, `Binance LIVE`; `Paper` on the paper exchange. */
export const accountName = (a: NamedAccount): string =>
  isPaper(a) ? venueLabel('paper') : `${venueLabel(a.venue)} ${MODE_WORDS[a.mode]}`;

/** `BYBIT LIVE`, `OKX DEMO`, `PAPER`: the header chip and the prompt's tag. */
export const accountChip = (a: NamedAccount): string =>
  isPaper(a) ? MODE_WORDS.paper : accountName(a).toUpperCase();

/**
 * Each venue's USDT perpetuals by the name the venue gives them. Binance writes "USDⓈ-M"; no font the app
 * ships or can count on (DejaVu, Liberation, Consolas) has the circled S, so it is written USDS-M, as
 * Binance's API does.
 */
export const VENUE_MARKETS: Record<VenueName, string> = {
  binance: 'Binance USDS-M futures',
  bybit: 'Bybit USDT perpetuals (linear)',
  okx: 'OKX USDT perpetual swaps',
};

const BALANCE_VENUES: Record<Exclude<Balance['exchange'], 'paper'>, VenueName> = {
  'binance-usdm': 'binance',
  'bybit-linear': 'bybit',
  'okx-swap': 'okx',
};

/** The line under `balance`: whose account the figures are. */
export const balanceSource = (exchange: Balance['exchange']): string =>
  exchange === 'paper' ? 'Paper exchange: no real funds.' : `${VENUE_MARKETS[BALANCE_VENUES[exchange]]}.`;

/** Where an exchange leg rests: `on the paper exchange`, `on Bybit`. */
export const onVenue = (venue: AccountVenue): string =>
  venue === 'paper' ? 'on the paper exchange' : `on ${VENUE_LABELS[venue]}`;

/** The chip's title: what the account is and whose funds it trades. */
export function accountTitle(a: NamedAccount): string {
  if (a.venue === 'paper' || a.mode === 'paper') {
    return 'Paper trading: orders fill on the built-in paper exchange with simulated funds.';
  }
  if (a.mode === 'demo') {
    return `DEMO: orders go to your ${venueLabel(a.venue)} demo-trading account (simulated funds).`;
  }
  return `LIVE: orders go to your ${VENUE_MARKETS[a.venue]} account with real funds.`;
}
