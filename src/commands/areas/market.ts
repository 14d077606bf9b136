import { z } from 'zod';
import { INTERVALS, PriceQuote } from '../../contracts/market';
import { findTicker } from '../../contracts/symbols';
import { isStablecoin, TRADABILITY_TEXT } from '../../contracts/tradability';
import type { ChartShown } from '../../services/market/chartSource';
import { formatPrice } from '../../services/trading/format';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { intervalCompletion, tickerCompletion } from '../providers';
import { defineCommand, type CommandContext } from '../types';
import { utcTime } from '../../services/time';

/** A ticker as typed: letters and digits, 1 to 12 characters; stored upper-case. */
export const Ticker = z
  .string()
  .regex(/^[A-Za-z0-9]{1,12}$/, 'A ticker is 1 to 12 letters or digits, e.g. BTC.')
  .transform((t) => t.toUpperCase());

/** What a command answers for a ticker it cannot trade: a stablecoin has no contract, anything else is unknown. */
export function untradedTickerMessage(word: string): string {
  const upper = word.toUpperCase();
  return isStablecoin(upper)
    ? TRADABILITY_TEXT.noContract(upper)
    : `Unknown symbol: ${upper}. Type a ticker such as BTC or ETH.`;
}

/** A ticker from the supported list (docs/product.md §9), e.g. `eth` → `ETH`. */
export const KnownTicker = Ticker.refine((t) => findTicker(t) !== undefined, {
  error: (issue) => untradedTickerMessage(String(issue.input)),
});

export const symbol = defineCommand({
  name: 'symbol',
  aliases: ['sym'],
  area: 'market',
  summary: 'Choose the symbol for the chart and trades.',
  usage: 'symbol <ticker>',
  examples: ['symbol eth', 'symbol SOL'],
  args: z.object({ ticker: KnownTicker.describe('a supported ticker, e.g. eth') }),
  complete: { ticker: tickerCompletion },
  run({ stores }, { ticker }) {
    return [success(`Symbol set to ${stores.ui.chooseTicker(ticker)}.`)];
  },
});

export const price = defineCommand({
  name: 'price',
  area: 'market',
  summary: 'Show the last price of a symbol (the chosen one by default).',
  usage: 'price [ticker]',
  examples: ['price', 'price eth'],
  args: z.object({
    ticker: KnownTicker.optional().describe('a supported ticker; the chosen one by default'),
  }),
  complete: { ticker: tickerCompletion },
  async run({ stores, api }, { ticker }) {
    const chosen = ticker ?? stores.ui.ticker.peek();
    const quote = await api.trading.call(PriceQuote, `/price/${chosen}USDT`);
    return {
      lines: [
        info(`${chosen}/USDT ${formatPrice(chosen + 'USDT', quote.price)}`),
        muted(`as of ${utcTime(quote.time)}`),
      ],
      data: { symbol: `${chosen}/USDT`, price: quote.price, time: quote.time },
    };
  },
});

export const chart = defineCommand({
  name: 'chart',
  area: 'market',
  summary: 'Set the chart interval.',
  usage: 'chart <interval>',
  examples: ['chart 15m', 'chart 1h', 'chart 1d'],
  args: z.object({
    interval: z
      .string()
      .transform((i) => i.toLowerCase())
      .pipe(z.enum(INTERVALS, { error: `An interval is one of ${INTERVALS.join(', ')}.` }))
      .describe('1m to 1d'),
  }),
  complete: { interval: intervalCompletion },
  run({ stores }, { interval }) {
    stores.market.chooseInterval(interval);
    return [success(`Chart interval set to ${interval}.`)];
  },
});

/** What the pane shows after `chart tv` / `chart local`, said the way it happened. */
function shownLine({ stores }: CommandContext, shown: ChartShown): OutputLine {
  if (shown.view === 'tv') {
    const { symbol: tvSymbol } = stores.chartSource.tvChart.peek();
    return success(`Showing TradingView's chart of ${tvSymbol} (${stores.market.interval.peek()}, UTC).`);
  }
  if (shown.view === 'loading') return info('TradingView is still loading.');
  return shown.note === null ? success('Showing the offline chart.') : failure(shown.note);
}

export const chartTv = defineCommand({
  name: 'chart tv',
  area: 'market',
  summary: "Show TradingView's chart (needs the internet; the offline chart stays when it cannot load).",
  usage: 'chart tv',
  examples: ['chart tv'],
  args: z.object({}),
  async run(ctx) {
    const shown = await ctx.stores.chartSource.choose('tv');
    return { lines: [shownLine(ctx, shown)], data: shown };
  },
});

export const chartLocal = defineCommand({
  name: 'chart local',
  area: 'market',
  summary: 'Show the offline chart (candles from this server, with news markers).',
  usage: 'chart local',
  examples: ['chart local'],
  args: z.object({}),
  async run(ctx) {
    const shown = await ctx.stores.chartSource.choose('local');
    return { lines: [shownLine(ctx, shown)], data: shown };
  },
});

export default [symbol, price, chart, chartTv, chartLocal];
