import { z } from 'zod';

/**
 * The watchlist on the wire (docs/product.md §3 watchlist item, §7 calls): `GET /api/watchlist/` answers the
 * items, `POST /api/watchlist/` adds one (`{ticker}`, any case), `DELETE /api/watchlist/{ticker}`
 * removes one. Tickers are upper case and must be supported symbols (src/contracts/symbols.ts).
 */
export const WatchlistItem = z.object({ ticker: z.string() });
export type WatchlistItem = z.infer<typeof WatchlistItem>;
export const WatchlistItems = z.array(WatchlistItem);

/** `POST /api/watchlist/` body; the ticker is trimmed and upper-cased before it is checked. */
export const WatchlistAdd = z.object({
  ticker: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[0-9A-Z]{1,20}$/, { error: 'a ticker such as BTC' }),
});

/** The server's `detail` texts for the watchlist. */
export const WATCHLIST_DETAILS = {
  unknownTicker: (ticker: string) => `Unknown ticker: ${ticker}.`,
  notWatched: (ticker: string) => `${ticker} is not on your watchlist.`,
} as const;
