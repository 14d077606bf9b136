import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import { pairOf } from '../../../../../src/contracts/trading';
import { ExchangeError, readVenueAnswer } from '../../exchange-error';
import type { SymbolFilters } from '../../paper/filters';
import { TtlCache } from '../venue-info';
import { Instrument, InstrumentRows, type OkxInstrument } from './answers';

export const VENUE = { venue: 'OKX' } as const;
const QUOTE = 'USDT';
const SWAP = '-USDT-SWAP';

/** The product's `BTCUSDT` as OKX's swap `BTC-USDT-SWAP`; null for a symbol that is not a USDT pair. */
export function instIdOf(symbol: string): string | null {
  const upper = symbol.toUpperCase();
  if (!upper.endsWith(QUOTE) || upper.length === QUOTE.length) return null;
  return `${upper.slice(0, -QUOTE.length)}${SWAP}`;
}

/** OKX's `BTC-USDT-SWAP` as the product's `BTCUSDT`; null for another kind of instrument. */
export function symbolOf(instId: string): string | null {
  if (!instId.endsWith(SWAP) || instId.length === SWAP.length) return null;
  return `${instId.slice(0, -SWAP.length)}${QUOTE}`;
}

/** A symbol OKX does not list (or does not trade now), in the app's words for -1121. */
export const notListed = (symbol: string): ExchangeError =>
  new ExchangeError(-1121, `OKX does not list ${pairOf(symbol)}.`);

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The characters of the app's lower-case ids, for the packed form (bijective base 37). */
const LOWER = '-0123456789abcdefghijklmnopqrstuvwxyz';
const MAX_ID = 32;
/** The packed body: 31 base-62 digits hold any 35 characters of {@link LOWER} (37^35 < 62^31). */
const PACKED = 31;
const LOWER_ID = /^[a-z0-9-]+$/;

/**
 * The app's client id (`^[.A-Z:/a-z0-9_-]{1,36}$`) as OKX's clOrdId / algoClOrdId: up to 32 letters and
 * digits, case-sensitive. The same id always maps to the same OKX id (a retry finds, or is refused as a
 * duplicate of, the first try), and the app's usual ids come back from OKX's ({@link appIdOf}):
 * - `L` + the id with `-` written `X`, for a lower-case id of up to 31 characters (`pp-12-sl-1` →
 *   `LppX12XslX1`: readable on OKX's own pages);
 * - `P` + 31 base-62 digits packing a lower-case id of 32 to 35 characters (`sc-<32 hex>`);
 * - `H` + 31 base-62 digits of its SHA-256 for any other id (upper case, `.`, `:`, `/`, `_`, or 36
 *   characters), which cannot be read back.
 */
export function okxIdOf(appId: string): string {
  if (LOWER_ID.test(appId) && appId.length < MAX_ID) return `L${appId.replaceAll('-', 'X')}`;
  if (LOWER_ID.test(appId) && appId.length <= 35) {
    let n = 0n;
    for (const ch of appId) n = n * 37n + BigInt(LOWER.indexOf(ch) + 1);
    return `P${base62(n).padStart(PACKED, '0')}`;
  }
  const digest = BigInt(`0x${createHash('sha256').update(appId).digest('hex')}`);
  return `H${base62(digest)
    .padStart(PACKED + 12, '0')
    .slice(0, PACKED)}`;
}

/** The app's id behind an OKX id made by {@link okxIdOf}; null for a hashed one or one not ours. */
export function appIdOf(okxId: string): string | null {
  const body = okxId.slice(1);
  if (okxId.startsWith('L') && /^[a-z0-9X]+$/.test(body)) return body.replaceAll('X', '-');
  if (!okxId.startsWith('P') || body.length !== PACKED || !/^[0-9A-Za-z]+$/.test(body)) return null;
  let n = 0n;
  for (const ch of body) n = n * 62n + BigInt(ALNUM.indexOf(ch));
  let out = '';
  while (n > 0n) {
    const digit = (n - 1n) % 37n;
    out = `${LOWER[Number(digit)]}${out}`;
    n = (n - 1n - digit) / 37n;
  }
  return out.length >= MAX_ID ? out : null;
}

function base62(n: bigint): string {
  let out = '';
  for (let v = n; v > 0n; v /= 62n) out = `${ALNUM[Number(v % 62n)]}${out}`;
  return out === '' ? '0' : out;
}

type Row = { instId: string };

/**
 * OKX's USDT swaps (`GET /api/v5/public/instruments?instType=SWAP`), read once an hour and shared by
 * every caller asking at once. OKX sizes in contracts of `ctVal` coins each; the app sizes in coins:
 * {@link filtersOf} turns the one into the other. A row is read strictly only when its symbol is asked
 * for: a row OKX changed for a swap nobody trades does not make the others unreadable.
 */
export class OkxInstruments {
  private readonly cache: TtlCache<Map<string, Row>>;

  constructor(
    private readonly client: { publicGet(path: string, params?: Record<string, string>): Promise<unknown[]> },
    cacheMs: number,
    now: () => number,
  ) {
    this.cache = new TtlCache(cacheMs, now);
  }

  /**
   * The swap of a listed, trading symbol; ExchangeError -1121 naming OKX otherwise (a symbol that is not
   * a USDT pair is refused before anything is asked).
   */
  async instrument(symbol: string): Promise<OkxInstrument> {
    const instId = instIdOf(symbol);
    if (instId === null) throw notListed(symbol);
    const rows = await this.cache.get('SWAP', () => this.load());
    const row = rows.get(instId);
    if (row === undefined) throw notListed(symbol);
    const info = readVenueAnswer(Instrument, row, `the instrument ${instId}`, VENUE);
    if (info.state !== 'live' || info.settleCcy !== QUOTE || info.ctType !== 'linear')
      throw notListed(symbol);
    return info;
  }

  /** The symbol's filters in coins, with the minimum order's worth at `price`. */
  async filters(symbol: string, price: Decimal): Promise<SymbolFilters> {
    return filtersOf(symbol, await this.instrument(symbol), price);
  }

  private async load(): Promise<Map<string, Row>> {
    const rows = readVenueAnswer(
      InstrumentRows,
      await this.client.publicGet('/api/v5/public/instruments', { instType: 'SWAP' }),
      'the instruments',
      VENUE,
    );
    return new Map(rows.map((r) => [r.instId, r]));
  }
}

/**
 * A swap's lot rules in coins: a step of `lotSz` contracts is `lotSz × ctVal` coins, the least order
 * `minSz × ctVal`, the largest market order `maxMktSz × ctVal`. OKX has no notional floor of its own
 * beyond `minSz`: the minimum notional is what `minSz` contracts are worth at `price` (rounded up to a
 * cent), so that an amount below the smallest order is refused, never raised to it.
 */
export function filtersOf(symbol: string, i: OkxInstrument, price: Decimal): SymbolFilters {
  const ctVal = new Decimal(i.ctVal);
  return {
    symbol,
    stepSize: ctVal.mul(i.lotSz),
    minQty: ctVal.mul(i.minSz),
    maxQty: ctVal.mul(i.maxMktSz ?? '1e12'),
    minNotional: ctVal.mul(i.minSz).mul(price).toDecimalPlaces(2, Decimal.ROUND_UP),
    tickSize: new Decimal(i.tickSz),
    brackets: [],
  };
}

/** Coins as OKX's contracts (`sz`), rounded down to the lot. */
export const contractsOf = (coins: Decimal.Value, i: OkxInstrument): Decimal =>
  new Decimal(coins).div(i.ctVal).toNearest(i.lotSz, Decimal.ROUND_DOWN);

/** OKX's contracts as coins. */
export const coinsOf = (contracts: Decimal.Value, i: Pick<OkxInstrument, 'ctVal'>): Decimal =>
  new Decimal(contracts).mul(i.ctVal);
