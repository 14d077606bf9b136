import { z } from 'zod';
import { loadWatchlist, unwatchTicker, watchTicker } from '../../services/feed/watchlist';
import { failure, info, muted, success } from '../../services/terminal/output';
import { tickerCompletion } from '../providers';
import { defineCommand, type CompletionProvider } from '../types';
import { KnownTicker } from './market';

const AREA = 'watchlist';

/** The tickers already on the watchlist, for completing `unwatch`. */
const watchedCompletion: CompletionProvider = ({ stores }) =>
  stores.watchlist.tickers
    .peek()
    .map((t) => t.toLowerCase())
    .sort();

export const watch = defineCommand({
  name: 'watch',
  area: AREA,
  summary: 'Add an asset to your watchlist (the My Watchlist tab shows its signals).',
  usage: 'watch <ticker>',
  examples: ['watch btc', 'watch sol'],
  args: z.object({ ticker: KnownTicker.describe('a supported ticker, e.g. btc') }),
  complete: { ticker: tickerCompletion },
  loginRequired: true,
  async run(ctx, { ticker }) {
    const done = await watchTicker(ctx.api.main, ctx.stores.watchlist, ticker);
    if (!done.ok) return [failure(done.message)];
    return { lines: [success(`Watching ${ticker.toUpperCase()}.`)], data: done.tickers };
  },
});

export const unwatch = defineCommand({
  name: 'unwatch',
  area: AREA,
  summary: 'Remove an asset from your watchlist.',
  usage: 'unwatch <ticker>',
  examples: ['unwatch btc'],
  args: z.object({ ticker: z.string().min(1).describe('a ticker on your watchlist') }),
  complete: { ticker: watchedCompletion },
  loginRequired: true,
  async run(ctx, { ticker }) {
    const done = await unwatchTicker(ctx.api.main, ctx.stores.watchlist, ticker);
    if (!done.ok) return [failure(done.message)];
    return { lines: [success(`Stopped watching ${ticker.toUpperCase()}.`)], data: done.tickers };
  },
});

export const watchlist = defineCommand({
  name: 'watchlist',
  aliases: ['wl'],
  area: AREA,
  summary: 'List the assets on your watchlist.',
  usage: 'watchlist',
  examples: ['watchlist'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const loaded = await loadWatchlist(ctx.api.main, ctx.stores.watchlist);
    if (!loaded.ok) return [failure(loaded.message)];
    if (loaded.tickers.length === 0) {
      return { lines: [muted('Your watchlist is empty. Add an asset with: watch <ticker>')], data: [] };
    }
    return { lines: [info(`Watchlist: ${loaded.tickers.join(', ')}`)], data: loaded.tickers };
  },
});

export default [watch, unwatch, watchlist];
