import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { BinanceClient } from '../../exchanges/binance-client';
import { ExchangeError, VenueAnswerUnreadable, readVenueAnswer } from '../exchange-error';
import { pairOf } from '../../../../src/contracts/trading';
import { buildBrackets, type Bracket, type SymbolFilters } from '../paper/filters';
import {
  CommissionRateAnswer,
  ExchangeInfoAnswer,
  LeverageBracketAnswer,
  LotSizeFilter,
  MinNotionalFilter,
  PriceFilter,
  SymbolInfo,
} from './binance-answers';

type SymbolEntry = z.output<typeof ExchangeInfoAnswer>['symbols'][number];

/** A filter an order cannot be sized without. */
function needed<T>(filter: T | undefined, type: string, what: string): T {
  if (filter === undefined) throw new VenueAnswerUnreadable('Binance', what, [`${type} filter missing`]);
  return filter;
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
  private readonly exchangeInfo: TtlCache<Map<string, SymbolEntry>>;
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

  /**
   * The symbol's filters from the cached exchangeInfo (MARKET_LOT_SIZE, else LOT_SIZE; MIN_NOTIONAL,
   * PRICE_FILTER). The lot filter is needed to size an order: a symbol without a readable one fails.
   */
  async filters(symbol: string): Promise<SymbolFilters> {
    const symbols = await this.exchangeInfo.get('', async () => {
      const body = readVenueAnswer(
        ExchangeInfoAnswer,
        await this.client.publicGet<unknown>('/fapi/v1/exchangeInfo'),
        'the exchange information',
      );
      return new Map(body.symbols.map((s) => [s.symbol, s]));
    });
    const entry = symbols.get(symbol);
    if (entry === undefined) throw notListed(symbol);
    const what = `the exchange information of ${symbol}`;
    const info = readVenueAnswer(SymbolInfo, entry, what);
    if (info.status !== 'TRADING') throw notListed(symbol);
    const f = (type: string) => info.filters.find((x) => x.filterType === type);
    const market = f('MARKET_LOT_SIZE');
    const marketLot =
      market === undefined ? undefined : readVenueAnswer(LotSizeFilter('MARKET_LOT_SIZE'), market, what);
    // A MARKET_LOT_SIZE of step 0 means "as LOT_SIZE".
    const lot =
      marketLot !== undefined && new Decimal(marketLot.stepSize).gt(0)
        ? marketLot
        : readVenueAnswer(LotSizeFilter('LOT_SIZE'), needed(f('LOT_SIZE'), 'LOT_SIZE', what), what);
    const minNotional = f('MIN_NOTIONAL');
    const price = f('PRICE_FILTER');
    return {
      symbol,
      stepSize: new Decimal(lot.stepSize),
      minQty: new Decimal(lot.minQty),
      maxQty: new Decimal(lot.maxQty),
      minNotional: new Decimal(
        minNotional === undefined ? '0' : readVenueAnswer(MinNotionalFilter, minNotional, what).notional,
      ),
      tickSize: new Decimal(
        price === undefined ? '0.0001' : readVenueAnswer(PriceFilter, price, what).tickSize,
      ),
      brackets: [],
    };
  }

  /** The account's leverage brackets for a symbol (`GET /fapi/v1/leverageBracket`, cached per account). */
  async bracketsOf(account: string, symbol: string): Promise<Bracket[]> {
    const bySymbol = await this.brackets.get(account, async () => {
      const rows = readVenueAnswer(
        LeverageBracketAnswer,
        await this.signedGet<unknown>(account, '/fapi/v1/leverageBracket', {}),
        'the leverage brackets',
      );
      return new Map(
        rows.map((r) => [
          r.symbol,
          buildBrackets(r.brackets.map((b) => [b.notionalCap, b.initialLeverage, b.maintMarginRatio])),
        ]),
      );
    });
    return bySymbol.get(symbol) ?? [];
  }

  /** The account's taker commission rate for a symbol (`GET /fapi/v1/commissionRate`, cached). */
  takerRate(account: string, symbol: string): Promise<Decimal> {
    return this.rates.get(`${account}|${symbol}`, async () => {
      const rate = readVenueAnswer(
        CommissionRateAnswer,
        await this.signedGet<unknown>(account, '/fapi/v1/commissionRate', { symbol }),
        'the commission rate',
      );
      return new Decimal(rate.takerCommissionRate);
    });
  }
}

/** A symbol Binance does not list (or does not trade now), in the app's words for -1121. */
function notListed(symbol: string): ExchangeError {
  return new ExchangeError(-1121, `Binance does not list ${pairOf(symbol)}.`);
}
