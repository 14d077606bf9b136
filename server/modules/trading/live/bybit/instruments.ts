import Decimal from 'decimal.js';
import type { z } from 'zod';
import { pairOf } from '../../../../../src/contracts/trading';
import type { BybitClient } from '../../../exchanges/bybit-client';
import { ExchangeError, readVenueAnswer } from '../../exchange-error';
import type { SymbolFilters } from '../../paper/filters';
import { TtlCache } from '../venue-info';
import { Instrument, InstrumentsPage } from './answers';

const VENUE = { venue: 'Bybit' } as const;
/** Pages of instruments-info read at most (1000 a page: Bybit lists some 600 linear symbols). */
const MAX_PAGES = 10;

type Row = z.output<typeof InstrumentsPage>['list'][number];
export type BybitInstrument = z.output<typeof Instrument>;

/** A symbol Bybit does not list (or does not trade now), in the app's words for -1121. */
export const notListed = (symbol: string): ExchangeError =>
  new ExchangeError(-1121, `Bybit does not list ${pairOf(symbol)}.`);

/**
 * Bybit's linear instruments (`GET /v5/market/instruments-info?category=linear`, every page), read once
 * an hour and shared by every caller asking at once. A symbol is read strictly only when asked for:
 * a row Bybit changed for a symbol nobody trades does not make the others unreadable.
 */
export class BybitInstruments {
  private readonly cache: TtlCache<Map<string, Row>>;

  constructor(
    private readonly client: Pick<BybitClient, 'publicGet'>,
    cacheMs: number,
    now: () => number,
  ) {
    this.cache = new TtlCache(cacheMs, now);
  }

  /** The instrument of a listed, trading symbol; ExchangeError -1121 naming Bybit otherwise. */
  async instrument(symbol: string): Promise<BybitInstrument> {
    const rows = await this.cache.get('linear', () => this.load());
    const row = rows.get(symbol);
    if (row === undefined) throw notListed(symbol);
    const info = readVenueAnswer(Instrument, row, `the instrument ${symbol}`, VENUE);
    if (info.status !== 'Trading') throw notListed(symbol);
    return info;
  }

  /**
   * The symbol's filters in the app's shape: lotSizeFilter.qtyStep, minOrderQty, maxMktOrderQty (the
   * market-order bound, else maxOrderQty) and minNotionalValue; priceFilter.tickSize.
   */
  async filters(symbol: string): Promise<SymbolFilters> {
    const { lotSizeFilter: lot, priceFilter } = await this.instrument(symbol);
    return {
      symbol,
      stepSize: new Decimal(lot.qtyStep),
      minQty: new Decimal(lot.minOrderQty),
      maxQty: new Decimal(lot.maxMktOrderQty ?? lot.maxOrderQty ?? '1e12'),
      minNotional: new Decimal(lot.minNotionalValue),
      tickSize: new Decimal(priceFilter.tickSize),
      brackets: [],
    };
  }

  /** leverageFilter.maxLeverage. */
  async maxLeverage(symbol: string): Promise<number> {
    return Number((await this.instrument(symbol)).leverageFilter.maxLeverage);
  }

  private async load(): Promise<Map<string, Row>> {
    const rows = new Map<string, Row>();
    let cursor = '';
    for (let n = 0; n < MAX_PAGES; n++) {
      const body = await this.client.publicGet('/v5/market/instruments-info', {
        category: 'linear',
        limit: 1000,
        ...(cursor === '' ? {} : { cursor }),
      });
      const pageOf = readVenueAnswer(InstrumentsPage, body, 'the instruments', VENUE);
      for (const r of pageOf.list) rows.set(r.symbol, r);
      cursor = pageOf.nextPageCursor;
      if (cursor === '' || pageOf.list.length === 0) break;
    }
    return rows;
  }
}
