import { z } from 'zod';
import { contractOf, findTicker } from '../../contracts/symbols';
import { isStablecoin, isTradable, TRADABILITY_TEXT } from '../../contracts/tradability';
import { matchesFilters } from '../../services/feed/feedView';
import { summarize } from '../../services/feed/format';
import { CARD_TEXT, chooseTicker, findCard, parseCardRef } from '../../services/feed/cardAddress';
import { placeSignalTrade } from '../../services/feed/signalTrade';
import type { FeedSignal } from '../../services/feed/types';
import {
  failure,
  muted,
  styled,
  success,
  type OutputLine,
  type Segment,
} from '../../services/terminal/output';
import { SIGNAL_TRADE_COMMAND } from '../grammar/line';
import { formatAmount, parseOrderWords } from '../grammar/order';
import { savedAmounts, tickerCompletion } from '../providers';
import { defineCommand, type CommandContext } from '../types';
import { CANCELLED, approveAtPrompt } from './authShared';
import feedFilterCommands from './feedFilter';

const AREA = 'feed';

const Impact = z.coerce
  .number({ error: 'The minimum impact is a number from 0 to 100.' })
  .min(0, { error: 'The minimum impact is a number from 0 to 100.' })
  .max(100, { error: 'The minimum impact is a number from 0 to 100.' });

const Count = z.coerce
  .number({ error: 'The count is a whole number from 1 to 50.' })
  .int({ error: 'The count is a whole number from 1 to 50.' })
  .min(1, { error: 'The count is a whole number from 1 to 50.' })
  .max(50, { error: 'The count is a whole number from 1 to 50.' });

const Position = z.coerce
  .number({ error: 'Give the number of a signal on screen, e.g. 1 for the top one.' })
  .int({ error: 'Give the number of a signal on screen, e.g. 1 for the top one.' })
  .min(1, { error: 'Give the number of a signal on screen, e.g. 1 for the top one.' });

const notOnScreen = (n: number): OutputLine => failure(`There is no signal ${n} on screen.`);

/** One signal as a terminal line: number on screen, id (`#113`), age, sentiment, impact, tags, source and headline. */
function feedLine(ctx: CommandContext, s: FeedSignal, onScreen: number): OutputLine {
  const prices = ctx.stores.market.prices.peek();
  const sum = summarize(s, ctx.stores.feed.now(), (symbol) => prices.get(symbol)?.p);
  const toneStyle = sum.tone === 'positive' ? 'gain' : sum.tone === 'negative' ? 'loss' : 'muted';
  const segments: Segment[] = [
    { text: `${onScreen > 0 ? String(onScreen) : '·'}`.padStart(3) + '  ' },
    { text: `#${s.id}`.padEnd(6) + ' ', style: 'muted' },
    { text: sum.age.padEnd(10), style: 'muted' },
    { text: sum.sentiment.padEnd(4), style: toneStyle },
    { text: sum.impact.padStart(11) + '  ' },
    { text: (sum.tags.length > 0 ? sum.tags.join(' ') : '').padEnd(18) + ' ' },
    { text: `${sum.source}: `, style: 'muted' },
    { text: sum.headline },
  ];
  return styled(segments);
}

export const feed = defineCommand({
  name: 'feed',
  area: AREA,
  summary: 'Print the latest signals, numbered as on screen; filter by asset, impact or sentiment.',
  usage: 'feed [asset]',
  examples: ['feed', 'feed btc', 'feed --min 70 --neg', 'feed --pos -n 5'],
  options: [
    { flags: '--min <impact>', description: 'only signals with at least this impact (0-100)' },
    { flags: '--pos', description: 'only positive signals' },
    { flags: '--neg', description: 'only negative signals' },
    { flags: '-n, --limit <count>', description: 'how many to print (default 10)' },
  ],
  args: z.object({
    asset: z
      .string()
      // A stablecoin is tagged when the news is about it: its signals can be listed, not traded.
      .refine((t) => findTicker(t) !== undefined || isStablecoin(t), {
        error: (issue) =>
          `Unknown symbol: ${String(issue.input).toUpperCase()}. Type a ticker such as BTC or ETH.`,
      })
      .transform((t) => t.toUpperCase())
      .optional()
      .describe('a ticker such as btc'),
    min: Impact.optional(),
    pos: z.boolean().optional(),
    neg: z.boolean().optional(),
    limit: Count.default(10),
  }),
  complete: { asset: tickerCompletion },
  run(ctx, args) {
    if (args.pos === true && args.neg === true)
      return [failure('Choose --pos or --neg, not both.', 'invalid-args')];
    const sentiment = args.pos === true ? 'positive' : args.neg === true ? 'negative' : null;
    const visible = ctx.stores.feedView.visible.peek();
    const passes = ctx.stores.feedFilter.passes.peek();
    const matched = ctx.stores.feed.signals
      .peek()
      .filter(passes)
      .filter((s) => args.asset === undefined || s.assets.includes(args.asset))
      .filter((s) => matchesFilters(s, { tab: 'all', sentiment, minImpact: args.min ?? 0 }, new Set()));
    if (matched.length === 0) {
      return { lines: [muted('No signals match.')], data: [] };
    }
    const shown = matched.slice(0, args.limit);
    const lines = shown.map((s) => feedLine(ctx, s, visible.indexOf(s) + 1));
    if (matched.length > shown.length)
      lines.push(muted(`${matched.length - shown.length} more; feed -n 50 shows all.`));
    return { lines, data: shown };
  },
});

export const open = defineCommand({
  name: 'open',
  area: AREA,
  summary: "Open the n-th signal's source in a new tab (1 is the top card on screen).",
  usage: 'open <n>',
  examples: ['open 1', 'open 3'],
  args: z.object({ n: Position.describe('the number of a signal on screen') }),
  run(ctx, { n }) {
    const s = ctx.stores.feedView.nth(n);
    if (s === undefined) return [notOnScreen(n)];
    const url = s.metadata.url;
    if (url === null) return [failure(`Signal ${n} has no link.`)];
    ctx.stores.feedView.openUrl(url);
    return [success(`Opened ${url}`)];
  },
});

const CardWord = z
  .string()
  .refine((w) => parseCardRef(w) !== null, { error: CARD_TEXT.badRef })
  .transform((w) => parseCardRef(w) ?? { kind: 'number' as const, n: 0 });

export const tradeSignal = defineCommand({
  name: SIGNAL_TRADE_COMMAND,
  area: AREA,
  summary:
    "Trade a card's first asset (or one it names): #113 long 500 by the id on the card, 2 long 500 by its place on screen.",
  usage: `${SIGNAL_TRADE_COMMAND} <card> <side> <amount> [asset]`,
  examples: ['#113 long 500', '#113 short 1k eth', '2 long 500', `${SIGNAL_TRADE_COMMAND} 3 long 250`],
  args: z.object({
    card: CardWord.describe('#113 (the id on a card) or 2 (the second card on screen)'),
    side: z.string().describe('long or short'),
    amount: z.string().describe('USDT total, k = thousands'),
    asset: z.string().optional().describe('one of the assets the signal names; its first by default'),
  }),
  complete: { amount: savedAmounts, asset: tickerCompletion },
  async run(ctx, { card, side, amount, asset }) {
    const found = findCard(card, ctx.stores.feedView, ctx.stores.feed);
    if (!found.ok) return [failure(found.message)];
    const s = found.signal;
    const choice = chooseTicker(s, asset);
    if (!choice.ok) return [failure(choice.message, 'invalid-args')];
    const ticker = choice.ticker;
    // A card about a stablecoin (or a coin without a contract) shows the tag; it is not traded.
    if (ticker !== null && !isTradable(ticker))
      return [failure(TRADABILITY_TEXT.noContract(ticker), 'invalid-args')];
    // The card's coin on the contract it trades on ($FLOKI → 1000FLOKI), as its tag's quick trade does.
    const parsed = parseOrderWords(
      [side, amount],
      (ticker === null ? undefined : contractOf(ticker)?.ticker) ?? ticker ?? 'BTC',
    );
    if (!parsed.ok) return [failure(parsed.message, 'invalid-args')];
    if (found.moved !== null && ticker !== null && ctx.stores.session.isLoggedIn.peek()) {
      const label = CARD_TEXT.moved(found.moved.n, s, found.moved.was);
      const answer = await ctx.stores.terminal.ask({ label, secret: false });
      if (answer === null || !/^y(es)?$/i.test(answer.trim())) return CANCELLED;
    }
    const cap = ctx.shell.preferences.fatFingerCap.peek();
    if (ticker !== null && ctx.stores.session.isLoggedIn.peek() && parsed.order.amount > cap) {
      const question =
        `${formatAmount(parsed.order.amount)} USDT is above your fat-finger cap of ${formatAmount(cap)} USDT. ` +
        `Place ${parsed.order.side} ${parsed.order.pair} for ${formatAmount(parsed.order.amount)} USDT?`;
      const answer = await ctx.stores.terminal.ask({ label: `${question} [y/N] `, secret: false });
      if (answer === null || !/^y(es)?$/i.test(answer.trim())) return CANCELLED;
    }
    const result = await placeSignalTrade(
      {
        trading: ctx.api.trading,
        session: ctx.stores.session,
        ui: ctx.stores.ui,
        positions: ctx.stores.positions,
        approve: () => approveAtPrompt(ctx),
        bracket: ctx.stores.quickBracket.protection,
      },
      ticker,
      parsed.order.side,
      parsed.order.amount,
    );
    if (!result.ok) return result.reason === 'cancelled' ? CANCELLED : [failure(result.message)];
    return {
      lines: [success(result.message), ...result.protection],
      data: result.order,
    };
  },
});

export default [feed, open, tradeSignal, ...feedFilterCommands];
