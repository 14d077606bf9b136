import type { EventType } from '../../../src/contracts/analysis';
import { SYMBOLS } from '../../../src/contracts/symbols';
import type { EventMatch } from './events';
import {
  DELISTING_MINOR,
  ETF_DECISION,
  ETF_HOLDINGS,
  HACK_MINOR,
  INSOLVENCY_CORE,
  INSOLVENCY_TAIL,
  LISTING_FULL,
  LISTING_MINOR,
  MACRO_SURPRISE,
  MARKET_WIDE,
  NOT_PRICE,
  PENALTY,
  PERP_ONLY,
  PRICE_MOVE,
  RECORD,
  REGULATOR_DECISION,
  ROADMAP,
  SCHEDULED,
  SPOT,
} from './impact-cues';
import { largestUsdAmount, signedPercents, type NormalizedText } from './normalize';

/**
 * Impact 0-100, a calibrated scale (docs/labelling.md §3, docs/analysis.md): 80+ is worth an alert
 * (a major-exchange listing or delisting, a $100M+ hack, an insolvency or withdrawal freeze, a depeg, a
 * regulator's decision, an ETF ruling, a macro surprise); 50-80 is notable; below 50 is background. The
 * score is a log map of the expected move: the event type's typical move (../shared/reference/analysis.md),
 * scaled by its size (dollar amounts, % moves), the venue, the asset's size, confirmation and, least, the
 * source's authority.
 */

/** Typical move in percent for each event type, from the measured effects. */
const TYPICAL_MOVE: Record<EventType, number> = {
  listing: 8, // +5.7% day average (Ante 2019), Binance bump median +29% intraday
  delisting: 8,
  hack: 5, // BTC about -1.5% on exchange hacks, the hacked token far more; scaled by the amount
  depeg: 12,
  withdrawals_halted: 10,
  insolvency: 15,
  regulation: 4, // bans and securities treatment the most negative class (BIS 2018)
  etf: 4, // 2017 ETF rejection: BTC -16% in minutes
  partnership: 1,
  adoption: 2.5,
  upgrade: 1.5,
  outage: 3,
  unlock: 2.5,
  buyback_burn: 2,
  fundraise: 0.8,
  macro: 2.5,
  liquidation: 3,
  whale_transfer: 1.2,
  price: 2,
  other: 0.2,
};

/** Dollar amount at which the amount factor is 1, and how steeply the amount counts, per event type. */
const AMOUNT_REF: Partial<Record<EventType, readonly [number, number]>> = {
  hack: [30e6, 0.45],
  liquidation: [500e6, 0.5],
  whale_transfer: [100e6, 0.4],
  unlock: [100e6, 0.35],
  fundraise: [50e6, 0.35],
  adoption: [500e6, 0.35],
  etf: [500e6, 0.45],
  buyback_burn: [50e6, 0.35],
  insolvency: [1e9, 0.25],
  // Fines and forfeits: $1.5M is a footnote, $4B a landmark.
  regulation: [100e6, 0.15],
};

/** `unknown`: an outlet or account the table does not know; it discounts little, it does not floor. */
export type Authority = 'exchange' | 'outlet' | 'data' | 'social' | 'unknown';

const AUTHORITY_FACTOR: Record<Authority, number> = {
  exchange: 1,
  outlet: 1,
  data: 0.85,
  unknown: 0.9,
  social: 0.75,
};

/** Exchange announcement > major outlet > on-chain data feed > tweet or chat. */
export function sourceAuthority(sourceName: string): Authority {
  const s = sourceName.toLowerCase();
  if (
    /announce|notice|listing|binance|coinbase|okx|bybit|upbit|kraken|bitget|bithumb|gate\.io|kucoin|robinhood/.test(
      s,
    )
  ) {
    return 'exchange';
  }
  if (
    /whale alert|lookonchain|arkham|nansen|glassnode|on-?chain|coinglass|peckshield|cyvers|cryptoquant|certik|santiment/.test(
      s,
    )
  )
    return 'data';
  // A regulator's, court's or government's own release is the decision itself.
  if (
    /\bsec\.gov\b|\bcftc\b|\bdoj\b|\bjustice\b|\bcourt\b|\bfca\b|\besma\b|\bmas\b|\bsfc\b|federal register|treasury|central bank|bank of|regulator|press (?:release|office)|ministry|government/.test(
      s,
    )
  )
    return 'outlet';
  if (
    /reuters|bloomberg|coindesk|the block|theblock|cointelegraph|decrypt|wsj|wall street|financial times|\bft\b|cnbc|associated press|\\bap\\b|afp|dow jones|nikkei|yonhap|kyodo|barron|marketwatch|blockworks|dl news|fortune|forbes|rss/.test(
      s,
    )
  ) {
    return 'outlet';
  }
  if (/^(?:x|twitter|telegram|reddit|discord|tg)\b|\btweet|\bchat\b|@/.test(s)) return 'social';
  return 'unknown';
}

export const RANK = new Map(SYMBOLS.map((s, i) => [s.ticker.replace(/^1000(?=[A-Z])/, ''), i]));

function sizeFactor(asset: string | null, type: EventType): number {
  if (asset === null) return type === 'other' ? 0.8 : 1;
  // Macro news moves the whole market; the coin named beside it is not its size.
  if (type === 'macro') return 1;
  const rank = RANK.get(asset) ?? 80;
  if (rank < 2) return 0.75;
  if (rank < 10) return 0.9;
  if (rank < 50) return 1;
  return 1.1;
}

export function venueFactor(lower: string): number {
  if (/\b(?:binance|coinbase|upbit)\b/.test(lower)) return 1.25;
  if (/\b(?:okx|bybit|bithumb)\b/.test(lower)) return 0.8;
  if (/\b(?:robinhood|revolut|kraken|gemini)\b/.test(lower)) return 0.7;
  return 0.6;
}

/** Piecewise-linear in ln(move): the bands of docs/labelling.md §3 (~1% → 25, 4% → 60, 8% → 82). */
const ANCHORS: readonly (readonly [number, number])[] = [
  [0.05, 0],
  [0.3, 8],
  [0.5, 14],
  [1, 25],
  [2, 40],
  [4, 60],
  [6, 75],
  [8, 82],
  [12, 88],
  [25, 95],
  [50, 98],
  [100, 100],
];

export function moveToScore(movePct: number): number {
  const x = Math.log(Math.max(movePct, 0.05));
  for (let i = 1; i < ANCHORS.length; i++) {
    const [m1, s1] = ANCHORS[i] ?? [100, 100];
    const [m0, s0] = ANCHORS[i - 1] ?? [0.05, 0];
    if (movePct <= m1) {
      const t = (x - Math.log(m0)) / (Math.log(m1) - Math.log(m0));
      return s0 + t * (s1 - s0);
    }
  }
  return 100;
}

export interface ImpactInput {
  event: EventMatch;
  lower: string;
  text: string;
  asset: string | null;
  assetCount: number;
  authority: Authority;
  /** The source's name, lowercased: an exchange's own notice names its venue there. */
  source?: string;
}

/** What the impact model reads of an item, from what the analyzer found in it. */
export function impactInputOf(
  text: NormalizedText,
  assets: readonly string[],
  event: EventMatch,
  sourceName: string,
): ImpactInput {
  return {
    event,
    lower: text.lower,
    text: text.text,
    asset: assets[0] ?? null,
    assetCount: assets.length,
    authority: sourceAuthority(sourceName),
    source: sourceName.toLowerCase(),
  };
}

const NEGATIVE_TYPES: ReadonlySet<EventType> = new Set([
  'hack',
  'withdrawals_halted',
  'insolvency',
  'depeg',
  'outage',
  'delisting',
]);

/** The expected move in percent (exported so tests can check the ordering of its factors). */
export function expectedMove({
  event,
  lower,
  text,
  asset,
  assetCount,
  authority,
  source,
}: ImpactInput): number {
  let move = TYPICAL_MOVE[event.type];
  if (event.type === 'other' && event.dir !== 0) move = 1.5; // layoffs, shutdowns, rehiring
  // A price move reported with the news ("XRP surges 18% after the ruling"): at least that much again.
  const pcts = NOT_PRICE.test(lower)
    ? []
    : event.type === 'price'
      ? signedPercents(lower).map((p) => Math.min(Math.abs(p), 60))
      : [...lower.matchAll(PRICE_MOVE)].map((m) => Math.min(Number(m[1]), 60));
  if (pcts.length > 0 && (event.type === 'price' || event.dir !== 0))
    move =
      event.type === 'price' ? Math.max(1, 0.4 * Math.max(...pcts)) : Math.max(move, 0.4 * Math.max(...pcts));
  if (event.type === 'price' && NOT_PRICE.test(lower)) move = 0.8;
  if (event.type === 'listing' || event.type === 'delisting')
    move *= venueFactor(authority === 'exchange' ? `${lower} ${source ?? ''}` : lower);
  if (event.type === 'listing' && ROADMAP.test(lower)) move *= 0.6;
  if (event.type === 'listing' && LISTING_MINOR.test(lower) && !LISTING_FULL.test(lower)) move *= 0.35;
  // A new venue for a top-ten coin adds little to a market that is already deep.
  if (event.type === 'listing' && asset !== null && (RANK.get(asset) ?? 80) < 10) move *= 0.6;
  if (event.type === 'listing' && asset === null) move *= 0.5;
  if (event.type === 'listing' && PERP_ONLY.test(lower) && !SPOT.test(lower)) move *= 0.7;
  if (event.type === 'delisting' && DELISTING_MINOR.test(lower)) move *= 0.5;
  if (event.type === 'insolvency' && (!INSOLVENCY_CORE.test(lower) || INSOLVENCY_TAIL.test(lower)))
    move *= 0.35;
  if (event.type === 'regulation' && REGULATOR_DECISION.test(lower)) move *= 2;
  const etfDecision = event.type === 'etf' && ETF_DECISION.test(lower);
  if (etfDecision) move *= 2.5;
  if ((event.type === 'withdrawals_halted' || event.type === 'outage') && SCHEDULED.test(lower))
    move = Math.min(move, 0.3);
  if (event.type === 'macro' && MACRO_SURPRISE.test(lower)) move *= 2;
  move *= AUTHORITY_FACTOR[authority];
  move *= sizeFactor(asset, event.type);
  const ref = AMOUNT_REF[event.type];
  const usd = largestUsdAmount(text);
  const notAnAmount =
    (event.type === 'etf' && ETF_HOLDINGS.test(lower)) ||
    (event.type === 'regulation' && !PENALTY.test(lower));
  if (ref !== undefined && usd > 0 && !notAnAmount)
    move *= Math.min(3, Math.max(0.4, (usd / ref[0]) ** ref[1]));
  if (event.type === 'hack' && usd === 0 && HACK_MINOR.test(lower)) move *= 0.5;
  if (RECORD.test(lower)) move *= 1.2;
  if (MARKET_WIDE.test(lower)) move *= 1.2;
  if (assetCount > 2) move *= 1.1;
  // The way back from a bad event (funds recovered, withdrawals reopened) moves less than the event.
  if (NEGATIVE_TYPES.has(event.type) && event.dir === 1) move *= 0.45;
  if (event.hedged) move *= 0.5;
  if (event.denied) move *= 0.4;
  if (event.dir === 0 && event.type !== 'other') move *= 0.35;
  // Flows, however large, are notable (50-79); a regulator's ruling on a fund is what alerts.
  if (event.type === 'etf' && !etfDecision) move = Math.min(move, 6);
  return move;
}
