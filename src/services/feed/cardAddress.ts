import { contractOf } from '../../contracts/symbols';
import { isStablecoin, TRADABILITY_TEXT } from '../../contracts/tradability';
import type { FeedStore } from './feedStore';
import type { FeedView } from './feedView';
import type { FeedSignal } from './types';

/**
 * How a line names a card. `#113` is the signal's own id, shown on the card: it never changes while
 * the feed grows. `5` is the fifth card on screen now, which a newer signal pushes down: it is read
 * against the cards as they were when the line was started, and a change is asked about.
 */
export type CardRef = { kind: 'id'; id: string } | { kind: 'number'; n: number };

export const CARD_TEXT = {
  badRef: 'Give a card: #113 (the id on the card) or 5 (the fifth card on screen).',
  notOnScreen: (n: number) => `There is no signal ${n} on screen.`,
  notInFeed: (id: string) => `There is no signal #${id} in the feed.`,
  notNamed: (id: string, ticker: string, named: readonly string[]) =>
    named.length === 0
      ? `Signal #${id} names no asset; trade ${ticker} with "${ticker.toLowerCase()} long <amount>".`
      : `Signal #${id} is about ${named.join(', ')}, not ${ticker}.`,
  unknownTicker: (word: string) => `Unknown symbol: ${word.toUpperCase()}. Type a ticker such as BTC or ETH.`,
  /** Asked when a bare number no longer points at the card it pointed at when the line was started. */
  moved: (n: number, now: FeedSignal, was: FeedSignal | undefined) =>
    `Card ${n} is now ${cardLabel(now)}, was ${was === undefined ? 'no card' : cardLabel(was)}: place? [y/N] `,
} as const;

/** `#113` (an id) or `5` (a number on screen); null for anything else. */
export function parseCardRef(word: string): CardRef | null {
  const id = /^#([1-9][0-9]{0,17})$/.exec(word);
  if (id?.[1] !== undefined) return { kind: 'id', id: id[1] };
  if (/^[1-9][0-9]{0,3}$/.test(word)) return { kind: 'number', n: Number(word) };
  return null;
}

/** The first asset a card trades, or null when its signal names none. */
export const cardTicker = (s: FeedSignal): string | null => s.asset ?? s.assets[0] ?? null;

/** `ICP #115`: what a card trades and its id, for questions. */
export function cardLabel(s: FeedSignal): string {
  return `${cardTicker(s) ?? 'no asset'} #${s.id}`;
}

export type CardLookup =
  | {
      ok: true;
      signal: FeedSignal;
      /** Set when a bare number points at another card than when the line was started. */
      moved: { n: number; was: FeedSignal | undefined } | null;
    }
  | { ok: false; message: string };

/** The card a reference names, and whether a bare number has moved since the line was started. */
export function findCard(ref: CardRef, view: FeedView, feed: FeedStore): CardLookup {
  if (ref.kind === 'id') {
    const signal = feed.signals.peek().find((s) => s.id === ref.id);
    return signal === undefined
      ? { ok: false, message: CARD_TEXT.notInFeed(ref.id) }
      : { ok: true, signal, moved: null };
  }
  const signal = view.nth(ref.n);
  if (signal === undefined) return { ok: false, message: CARD_TEXT.notOnScreen(ref.n) };
  const before = view.nthAtLineStart(ref.n);
  if (before === null || before?.id === signal.id) return { ok: true, signal, moved: null };
  // The card it was, as it is now (an analyzing card may have been completed since).
  const was =
    before === undefined ? undefined : (feed.signals.peek().find((s) => s.id === before.id) ?? before);
  return { ok: true, signal, moved: { n: ref.n, was } };
}

export type TickerChoice = { ok: true; ticker: string | null } | { ok: false; message: string };

/**
 * The asset to trade on a card: its first asset, or the one named after the amount
 * (`#113 short 1k eth`), which must be one the signal is about.
 */
export function chooseTicker(s: FeedSignal, named: string | undefined): TickerChoice {
  if (named === undefined) return { ok: true, ticker: cardTicker(s) };
  const about = s.asset === null ? s.assets : [s.asset, ...s.assets.filter((a) => a !== s.asset)];
  const info = contractOf(named);
  const upper = named.toUpperCase();
  // A tag of the card, or a stablecoin, that has no contract: said so, not "unknown".
  if (info === undefined && (about.includes(upper) || isStablecoin(upper)))
    return { ok: false, message: TRADABILITY_TEXT.noContract(upper) };
  if (info === undefined) return { ok: false, message: CARD_TEXT.unknownTicker(named) };
  // The coin as the signal names it, whether typed so or as its contract (floki or 1000floki for $FLOKI).
  const ticker = about.find((a) => contractOf(a)?.symbol === info.symbol);
  if (ticker === undefined) {
    return { ok: false, message: CARD_TEXT.notNamed(s.id, named.toUpperCase(), about) };
  }
  return { ok: true, ticker };
}
