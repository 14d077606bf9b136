import type { PriceBook } from '../market/price-book';
import type { DecisionRow } from './rules.types';

/** Whose prices the stops and targets of a position on a key (live or demo) act on: Binance's stream. */
const VENUE = 'binance' as const;

/**
 * The prices rules' exits act on: a paper position's on the paper exchange's (the book's young last
 * price, whatever its source), a position on a key only on its venue's own (Binance's mark, else its
 * last price). A simulated price says nothing of where Binance trades: while the prices here are the
 * simulator's, the take profit and stop loss of positions on keys do not act in the app.
 */
export function exitPrices(book: Pick<PriceBook, 'last' | 'venuePrice' | 'flowingFrom'>) {
  const onKey = (d: DecisionRow) => d.accountMode !== 'paper';
  return {
    priceOf: (d: DecisionRow): number | undefined =>
      onKey(d) ? book.venuePrice(d.symbol, VENUE) : book.last(d.symbol),
    /** Why a decision's take profit and stop loss cannot act now, or null. */
    paused: (d: DecisionRow): string | null => {
      if (!onKey(d) || book.flowingFrom(VENUE)) return null;
      return book.flowingFrom('sim')
        ? "the prices here are simulated, not Binance's"
        : 'no prices from Binance reach the server now';
    },
    /** Whether the take profit and stop loss of positions on live and demo accounts act in the app now. */
    liveActive: (): boolean => book.flowingFrom(VENUE),
  };
}
