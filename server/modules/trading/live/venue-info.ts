import Decimal from 'decimal.js';
import type { BinanceClient } from '../../exchanges/binance-client';
import { exchangeErrors } from '../exchange-error';
import { buildBrackets, type Bracket, type SymbolFilters } from '../paper/filters';

/** `GET /fapi/v1/exchangeInfo` symbol entry, the parts used. */
interface SymbolInfo {
  symbol: string;
  status: string;
  filters: { filterType: string; [k: string]: unknown }[];
}

interface BracketRow {
  symbol: string;
  brackets: {
    bracket: number;
    initialLeverage: number;
    notionalCap: number;
    notionalFloor: number;
    maintMarginRatio: number;
    cum: number;
  }[];
}

/** A signed GET on behalf of an account. */
export type SignedGet = <T>(
  account: string,
  path: string,
  params: Record<string, string | number>,
) => Promise<T>;

/**
 * Answers kept for `ttlMs`, one per key. The promise itself is kept, so callers asking at once share one
 * request; a failed answer is dropped at once so that the next caller asks again.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry !== undefined && this.now() - entry.at <= this.ttlMs) return entry.value;
    const value = load();
    this.entries.set(key, { at: this.now(), value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

/**
 * What the venue says about its symbols and about an account's terms, read seldom and kept for
 * `cacheMs`: exchangeInfo (each symbol's filters), the account's leverage brackets and its taker
 * commission rate per symbol.
 */
export class VenueInfo {
  private readonly exchangeInfo: TtlCache<Map<string, SymbolInfo>>;
  private readonly brackets: TtlCache<Map<string, Bracket[]>>;
  private readonly rates: TtlCache<Decimal>;

  constructor(
    private readonly client: Pick<BinanceClient, 'publicGet'>,
    private readonly signedGet: SignedGet,
    cacheMs: number,
    now: () => number,
  ) {
    this.exchangeInfo = new TtlCache(cacheMs, now);
    this.brackets = new TtlCache(cacheMs, now);
    this.rates = new TtlCache(cacheMs, now);
  }

  /** The symbol's filters from the cached exchangeInfo (MARKET_LOT_SIZE, MIN_NOTIONAL, PRICE_FILTER). */
  async filters(symbol: string): Promise<SymbolFilters> {
    const symbols = await this.exchangeInfo.get('', () =>
      this.client
        .publicGet<{ symbols: SymbolInfo[] }>('/fapi/v1/exchangeInfo')
        .then((body) => new Map(body.symbols.map((s) => [s.symbol, s]))),
    );
    const info = symbols.get(symbol);
    if (info === undefined || info.status !== 'TRADING') throw exchangeErrors.invalidSymbol();
    const f = (type: string) => info.filters.find((x) => x.filterType === type);
    const lot = f('MARKET_LOT_SIZE') ?? f('LOT_SIZE');
    const step = new Decimal(String(lot?.stepSize ?? '0'));
    const lotFilter = step.gt(0) ? lot : f('LOT_SIZE');
    return {
      symbol,
      stepSize: new Decimal(String(lotFilter?.stepSize ?? '1')),
      minQty: new Decimal(String(lotFilter?.minQty ?? '0')),
      maxQty: new Decimal(String(lotFilter?.maxQty ?? '1e12')),
      minNotional: new Decimal(String(f('MIN_NOTIONAL')?.notional ?? '0')),
      tickSize: new Decimal(String(f('PRICE_FILTER')?.tickSize ?? '0.0001')),
      brackets: [],
    };
  }

  /** The account's leverage brackets for a symbol (`GET /fapi/v1/leverageBracket`, cached per account). */
  async bracketsOf(account: string, symbol: string): Promise<Bracket[]> {
    const bySymbol = await this.brackets.get(account, () =>
      this.signedGet<BracketRow[]>(account, '/fapi/v1/leverageBracket', {}).then(
        (rows) =>
          new Map(
            rows.map((r) => [
              r.symbol,
              buildBrackets(r.brackets.map((b) => [b.notionalCap, b.initialLeverage, b.maintMarginRatio])),
            ]),
          ),
      ),
    );
    return bySymbol.get(symbol) ?? [];
  }

  /** The account's taker commission rate for a symbol (`GET /fapi/v1/commissionRate`, cached). */
  takerRate(account: string, symbol: string): Promise<Decimal> {
    return this.rates.get(`${account}|${symbol}`, () =>
      this.signedGet<{ takerCommissionRate: string }>(account, '/fapi/v1/commissionRate', { symbol }).then(
        (r) => new Decimal(r.takerCommissionRate),
      ),
    );
  }
}
