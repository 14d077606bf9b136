import Decimal from 'decimal.js';
import { lotFiltersFor } from '../../../../src/contracts/sizing';
import { findSymbol } from '../../../../src/contracts/symbols';
import { tickSizeFor } from '../../../../src/contracts/ticks';

/** One leverage bracket (Binance `leverageBracket`): notional range, its max leverage and maintenance rate. */
export interface Bracket {
  floor: Decimal;
  cap: Decimal;
  maxLeverage: number;
  mmr: Decimal;
  /** Maintenance amount: cum_n = floor_n × (MMR_n − MMR_{n−1}) + cum_{n−1}. */
  cum: Decimal;
}

/** The exchangeInfo filters the paper exchange enforces for one symbol. */
export interface SymbolFilters {
  symbol: string;
  /** MARKET_LOT_SIZE step and bounds. */
  stepSize: Decimal;
  minQty: Decimal;
  maxQty: Decimal;
  /** MIN_NOTIONAL.notional. */
  minNotional: Decimal;
  /** PRICE_FILTER.tickSize. */
  tickSize: Decimal;
  brackets: Bracket[];
}

type Tiers = readonly (readonly [cap: number, maxLeverage: number, mmr: number])[];

/** Builds brackets from [cap, leverage, MMR] rows, deriving floors and maintenance amounts. */
export function buildBrackets(tiers: Tiers): Bracket[] {
  const out: Bracket[] = [];
  let floor = new Decimal(0);
  let prevMmr = new Decimal(0);
  let cum = new Decimal(0);
  for (const [cap, maxLeverage, mmrNum] of tiers) {
    const mmr = new Decimal(mmrNum);
    cum = floor.mul(mmr.minus(prevMmr)).plus(cum);
    out.push({ floor, cap: new Decimal(cap), maxLeverage, mmr, cum });
    floor = new Decimal(cap);
    prevMmr = mmr;
  }
  return out;
}

/**
 * Bracket families. BTC's first four tiers are Binance's published BTCUSDT snapshot; the rest follow the
 * same shape as Binance's tables for large, mid and small caps (a bundled approximation, not live data).
 */
const TIERS = {
  btc: [
    [50_000, 125, 0.004],
    [600_000, 100, 0.005],
    [3_000_000, 75, 0.0065],
    [12_000_000, 50, 0.01],
    [70_000_000, 25, 0.02],
    [100_000_000, 20, 0.025],
    [230_000_000, 10, 0.05],
    [480_000_000, 5, 0.1],
    [600_000_000, 4, 0.125],
    [800_000_000, 3, 0.15],
    [1_200_000_000, 2, 0.25],
    [1_800_000_000, 1, 0.5],
  ],
  eth: [
    [50_000, 125, 0.004],
    [600_000, 100, 0.005],
    [3_000_000, 75, 0.0065],
    [12_000_000, 50, 0.01],
    [50_000_000, 25, 0.02],
    [65_000_000, 20, 0.025],
    [150_000_000, 10, 0.05],
    [320_000_000, 5, 0.1],
    [400_000_000, 4, 0.125],
    [530_000_000, 3, 0.15],
    [800_000_000, 2, 0.25],
    [1_200_000_000, 1, 0.5],
  ],
  large: [
    [10_000, 75, 0.005],
    [50_000, 50, 0.01],
    [250_000, 25, 0.02],
    [1_000_000, 20, 0.025],
    [5_000_000, 10, 0.05],
    [10_000_000, 5, 0.1],
    [15_000_000, 4, 0.125],
    [25_000_000, 3, 0.15],
    [50_000_000, 2, 0.25],
    [100_000_000, 1, 0.5],
  ],
  small: [
    [5_000, 50, 0.01],
    [25_000, 25, 0.02],
    [100_000, 20, 0.025],
    [250_000, 10, 0.05],
    [1_000_000, 5, 0.1],
    [3_000_000, 4, 0.125],
    [5_000_000, 3, 0.15],
    [10_000_000, 2, 0.25],
    [20_000_000, 1, 0.5],
  ],
} as const satisfies Record<string, Tiers>;

const LARGE = new Set([
  'BNB',
  'SOL',
  'XRP',
  'DOGE',
  'ADA',
  'TRX',
  'AVAX',
  'LINK',
  'DOT',
  'LTC',
  'BCH',
  'TON',
  'SUI',
]);

const BRACKETS = {
  btc: buildBrackets(TIERS.btc),
  eth: buildBrackets(TIERS.eth),
  large: buildBrackets(TIERS.large),
  small: buildBrackets(TIERS.small),
};

/**
 * The filters of a supported symbol, or undefined for an unknown one. The lot filters are the shared
 * ones the browser sizes previews with; `referencePrice` (the current price) sizes the lot step and tick
 * of symbols without bundled filters.
 */
export function filtersFor(symbol: string, referencePrice: Decimal.Value = 1): SymbolFilters | undefined {
  // The price only matters through its power of ten (the default step and tick): one object per pair,
  // since every snapshot and fill asks again.
  const exponent = Math.floor(Math.log10(Math.max(new Decimal(referencePrice).toNumber(), 1e-8)));
  const key = `${symbol} ${exponent}`;
  const cached = made.get(key);
  if (cached !== undefined || made.has(key)) return cached;
  const filters = buildFilters(symbol, referencePrice);
  if (made.size < 10_000) made.set(key, filters);
  return filters;
}

const made = new Map<string, SymbolFilters | undefined>();

function buildFilters(symbol: string, referencePrice: Decimal.Value): SymbolFilters | undefined {
  const info = findSymbol(symbol);
  if (!info) return undefined;
  const lot = lotFiltersFor(symbol, referencePrice);
  if (!lot) return undefined;
  const family =
    info.ticker === 'BTC'
      ? 'btc'
      : info.ticker === 'ETH'
        ? 'eth'
        : LARGE.has(info.ticker)
          ? 'large'
          : 'small';
  return {
    symbol,
    stepSize: new Decimal(lot.stepSize),
    minQty: new Decimal(lot.minQty),
    maxQty: new Decimal(lot.maxQty),
    minNotional: new Decimal(lot.minNotional),
    tickSize: new Decimal(tickSizeFor(symbol, referencePrice)),
    brackets: BRACKETS[family],
  };
}

/** The bracket whose notional range holds `notional` (the last one beyond the table). */
export function bracketFor(filters: SymbolFilters, notional: Decimal): Bracket {
  const brackets = filters.brackets;
  for (const b of brackets) if (notional.lt(b.cap)) return b;
  const last = brackets[brackets.length - 1];
  if (!last) throw new Error(`no brackets for ${filters.symbol}`);
  return last;
}
