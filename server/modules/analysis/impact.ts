import type { EventType } from '../../../src/contracts/analysis';
import { SYMBOLS } from '../../../src/contracts/symbols';
import type { EventMatch } from './events';
import { largestUsdAmount, signedPercents } from './normalize';

/**
 * Impact 0-100 from the expected move (../shared/reference/analysis.md, docs/labelling.md §3): the event
 * type's typical move, scaled by the source's authority, confirmation, the asset's size, scope and
 * amounts, then a log map (~0.5% → 15, 5% → 55, 25% → 90+).
 */

/** Typical move in percent for each event type, from the measured effects. */
const TYPICAL_MOVE: Record<EventType, number> = {
  listing: 8, // +5.7% day average (Ante 2019), Binance bump median +29% intraday
  delisting: 8,
  hack: 3, // BTC about -1.5% on exchange hacks, the hacked token far more
  depeg: 12,
  withdrawals_halted: 10,
  insolvency: 15,
  regulation: 4, // bans and securities treatment the most negative class (BIS 2018)
  etf: 6, // 2017 ETF rejection: BTC -16% in minutes
  partnership: 1,
  adoption: 2.5,
  upgrade: 1.5,
  outage: 3,
  unlock: 2.5,
  buyback_burn: 2,
  fundraise: 0.8,
  macro: 2.5,
  liquidation: 2.5,
  whale_transfer: 1.2,
  price: 2,
  other: 0.2,
};

/** Dollar amount at which the amount factor is 1, per event type. */
const AMOUNT_REF: Partial<Record<EventType, number>> = {
  hack: 50e6,
  liquidation: 300e6,
  whale_transfer: 50e6,
  unlock: 100e6,
  fundraise: 50e6,
  adoption: 500e6,
  etf: 300e6,
  buyback_burn: 50e6,
};

export type Authority = 'exchange' | 'outlet' | 'data' | 'social';

const AUTHORITY_FACTOR: Record<Authority, number> = {
  exchange: 1.15,
  outlet: 0.95,
  data: 0.85,
  social: 0.65,
};

/** Exchange announcement > major outlet > on-chain data feed > tweet or chat. */
export function sourceAuthority(sourceName: string): Authority {
  const s = sourceName.toLowerCase();
  if (
    /announce|notice|listing|binance|coinbase|okx|bybit|upbit|kraken|bitget|bithumb|gate\.io|kucoin/.test(s)
  ) {
    return 'exchange';
  }
  if (/whale alert|lookonchain|arkham|nansen|glassnode|on-?chain/.test(s)) return 'data';
  if (
    /reuters|bloomberg|coindesk|the block|theblock|cointelegraph|decrypt|wsj|wall street|financial times|\bft\b|cnbc|associated press|blockworks|dl news|fortune|forbes|rss/.test(
      s,
    )
  ) {
    return 'outlet';
  }
  return 'social';
}

const RANK = new Map(SYMBOLS.map((s, i) => [s.ticker, i]));

function sizeFactor(asset: string | null, type: EventType): number {
  if (asset === null) return type === 'hack' || type === 'other' ? 0.8 : 1;
  const rank = RANK.get(asset) ?? 60;
  if (rank < 2) return 0.6;
  if (rank < 10) return 0.8;
  if (rank < 50) return 1;
  return 1.15;
}

function venueFactor(lower: string): number {
  if (/\b(?:binance|coinbase|upbit)\b/.test(lower)) return 1.25;
  if (/\b(?:robinhood|revolut|kraken|gemini)\b/.test(lower)) return 0.75;
  return 0.9;
}

/** Piecewise-linear in ln(move): the anchors of docs/labelling.md §3. */
const ANCHORS: readonly (readonly [number, number])[] = [
  [0.05, 0],
  [0.3, 8],
  [0.5, 15],
  [1, 27],
  [2, 38],
  [5, 55],
  [10, 72],
  [25, 90],
  [50, 97],
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
}

/** The expected move in percent (exported so tests can check the ordering of its factors). */
export function expectedMove({ event, lower, text, asset, assetCount, authority }: ImpactInput): number {
  let move = TYPICAL_MOVE[event.type];
  if (event.type === 'price') {
    const pcts = signedPercents(lower).map(Math.abs);
    if (pcts.length > 0) move = Math.max(...pcts);
  }
  if (event.type === 'listing' || event.type === 'delisting') move *= venueFactor(lower);
  move *= AUTHORITY_FACTOR[authority];
  move *= sizeFactor(asset, event.type);
  const ref = AMOUNT_REF[event.type];
  const usd = largestUsdAmount(text);
  if (ref !== undefined && usd > 0) move *= Math.min(3, Math.max(0.4, (usd / ref) ** 0.35));
  if (/\b(?:largest|biggest|record|first-ever|all-time|historic)\b/.test(lower)) move *= 1.25;
  if (/\b(?:all crypto|entire market|crypto market|across the bloc|nationwide)\b/.test(lower)) move *= 1.2;
  if (assetCount > 2) move *= 1.1;
  if (event.hedged) move *= 0.5;
  if (event.denied) move *= 0.4;
  if (event.dir === 0 && event.type !== 'other') move *= 0.35;
  return move;
}

export function impactScore(input: ImpactInput): number {
  return Math.round(moveToScore(expectedMove(input)));
}
