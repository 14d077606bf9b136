import Decimal from 'decimal.js';
import { findSymbol } from '../../../../src/contracts/symbols';

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

/** Lot and notional filters for the majors (Binance USD-M snapshot); others get a family default. */
const KNOWN: Record<
  string,
  { step: string; minQty: string; maxQty: string; minNotional: string; tick: string }
> = {
  BTCUSDT: { step: '0.001', minQty: '0.001', maxQty: '120', minNotional: '100', tick: '0.10' },
  ETHUSDT: { step: '0.001', minQty: '0.001', maxQty: '2000', minNotional: '20', tick: '0.01' },
  BNBUSDT: { step: '0.01', minQty: '0.01', maxQty: '2000', minNotional: '5', tick: '0.010' },
  SOLUSDT: { step: '0.01', minQty: '0.01', maxQty: '5000', minNotional: '5', tick: '0.0100' },
  XRPUSDT: { step: '0.1', minQty: '0.1', maxQty: '2000000', minNotional: '5', tick: '0.0001' },
  DOGEUSDT: { step: '1', minQty: '1', maxQty: '30000000', minNotional: '5', tick: '0.00001' },
  ADAUSDT: { step: '1', minQty: '1', maxQty: '5000000', minNotional: '5', tick: '0.00010' },
  LINKUSDT: { step: '0.01', minQty: '0.01', maxQty: '100000', minNotional: '5', tick: '0.001' },
  LTCUSDT: { step: '0.001', minQty: '0.001', maxQty: '10000', minNotional: '20', tick: '0.01' },
  BCHUSDT: { step: '0.001', minQty: '0.001', maxQty: '10000', minNotional: '20', tick: '0.01' },
};

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

/**
 * Filters for a symbol at a reference price. For symbols without a bundled lot filter, the step is
 * chosen so that one step is worth between 0.1 and 1 USDT at that price, as Binance's tables do.
 */
function defaultsFor(price: Decimal) {
  const exponent = Math.floor(Math.log10(Math.max(price.toNumber(), 1e-8)));
  const step = new Decimal(10).pow(Math.min(3, Math.max(-3, -exponent)));
  const tick = new Decimal(10).pow(exponent - 4);
  return { step, tick };
}

const BRACKETS = {
  btc: buildBrackets(TIERS.btc),
  eth: buildBrackets(TIERS.eth),
  large: buildBrackets(TIERS.large),
  small: buildBrackets(TIERS.small),
};

/**
 * The filters of a supported symbol, or undefined for an unknown one. `referencePrice` (the current
 * price) sizes the lot step of symbols without a bundled lot filter.
 */
export function filtersFor(symbol: string, referencePrice: Decimal.Value = 1): SymbolFilters | undefined {
  const info = findSymbol(symbol);
  if (!info) return undefined;
  const known = KNOWN[symbol];
  const family =
    info.ticker === 'BTC'
      ? 'btc'
      : info.ticker === 'ETH'
        ? 'eth'
        : LARGE.has(info.ticker)
          ? 'large'
          : 'small';
  const d = defaultsFor(new Decimal(referencePrice));
  return {
    symbol,
    stepSize: new Decimal(known?.step ?? d.step),
    minQty: new Decimal(known?.minQty ?? d.step),
    maxQty: new Decimal(known?.maxQty ?? '100000000'),
    minNotional: new Decimal(known?.minNotional ?? '5'),
    tickSize: new Decimal(known?.tick ?? d.tick),
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
