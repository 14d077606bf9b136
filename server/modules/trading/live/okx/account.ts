import Decimal from 'decimal.js';
import type { OkxClient } from '../../../exchanges/okx-client';
import type { AccountBalance, PositionRisk } from '../../exchange';
import { exchangeErrors, readVenueAnswer } from '../../exchange-error';
import { TtlCache } from '../venue-info';
import {
  BalanceRows,
  LeverageRows,
  PositionRow,
  PositionRows,
  TickerRows,
  TradeFeeRows,
  type OkxInstrument,
} from './answers';
import type { OkxCall } from './orders';
import { positionRiskOf } from './shapes';
import { VENUE, symbolOf, type OkxInstruments } from './symbols';

/** OKX's standard swap taker rate (0.05 %), when the account's own cannot be read. */
const STANDARD_TAKER = new Decimal('0.0005');

/**
 * What the adapter reads of an OKX account and market, in the app's shapes: the net positions in coins,
 * the USDT balance, a swap's leverage and taker rate, and the price orders are sized at.
 */
export class OkxAccountReads {
  private readonly rates: TtlCache<Decimal>;

  constructor(
    private readonly call: OkxCall,
    private readonly client: Pick<OkxClient, 'publicGet'>,
    private readonly instruments: OkxInstruments,
    cacheMs: number,
    private readonly now: () => number,
    private readonly price?: (symbol: string) => number | undefined,
  ) {
    this.rates = new TtlCache(cacheMs, now);
  }

  /** Open net positions (`/account/positions?instType=SWAP`), contracts in coins. */
  async positions(account: string): Promise<PositionRisk[]> {
    const { data } = await this.call(account, 'GET', '/api/v5/account/positions', { instType: 'SWAP' });
    const out: PositionRisk[] = [];
    for (const raw of readVenueAnswer(PositionRows, data, 'the positions', VENUE)) {
      const symbol = symbolOf(raw.instId);
      if (symbol === null) continue;
      const row = readVenueAnswer(PositionRow, raw, 'the positions', VENUE);
      if (row.posSide !== 'net' || new Decimal(row.pos).isZero()) continue;
      const instrument = await this.instrumentOf(row.instId);
      if (instrument !== undefined) out.push(positionRiskOf(row, symbol, instrument));
    }
    return out;
  }

  /**
   * The trading account's USDT: its cash balance (the wallet, before unrealised PnL, as Binance's
   * balance is), the equity available for new margin (`availEq`, else `availBal`) and the unrealised PnL.
   */
  async balance(account: string): Promise<AccountBalance> {
    const { data } = await this.call(account, 'GET', '/api/v5/account/balance', { ccy: 'USDT' });
    const usdt = readVenueAnswer(BalanceRows, data, 'the balance', VENUE)
      .at(0)
      ?.details.find((d) => d.ccy === 'USDT');
    if (usdt === undefined) {
      return { asset: 'USDT', balance: '0', availableBalance: '0', crossUnPnl: '0', updateTime: this.now() };
    }
    return {
      asset: 'USDT',
      balance: usdt.cashBal,
      availableBalance: usdt.availEq ?? usdt.availBal ?? usdt.cashBal,
      crossUnPnl: usdt.upl,
      updateTime: this.now(),
    };
  }

  /** The swap of an instId, or undefined when it is not one the adapter trades. */
  async instrumentOf(instId: string): Promise<OkxInstrument | undefined> {
    const symbol = symbolOf(instId);
    return symbol === null ? undefined : this.instruments.instrument(symbol).catch(() => undefined);
  }

  /** The swap's cross leverage on the account (`/account/leverage-info`). */
  async leverageOf(account: string, i: OkxInstrument): Promise<number> {
    const { data } = await this.call(account, 'GET', '/api/v5/account/leverage-info', {
      instId: i.instId,
      mgnMode: 'cross',
    });
    return Number(readVenueAnswer(LeverageRows, data, 'the leverage', VENUE).at(0)?.lever) || 1;
  }

  /** The account's taker rate on the swap's family (`/account/trade-fee`; negative is charged). */
  takerRate(account: string, i: OkxInstrument): Promise<Decimal> {
    const family = i.instId.replace(/-SWAP$/, '');
    return this.rates.get(`${account}|${family}`, async () => {
      try {
        const { data } = await this.call(account, 'GET', '/api/v5/account/trade-fee', {
          instType: 'SWAP',
          instFamily: family,
        });
        const [row] = readVenueAnswer(TradeFeeRows, data, 'the fee rate', VENUE);
        const rate = row?.takerU ?? row?.taker;
        return rate == null ? STANDARD_TAKER : new Decimal(rate).abs();
      } catch {
        return STANDARD_TAKER;
      }
    });
  }

  /** The app's own price when it has one, else OKX's last trade (`/market/ticker`). */
  async referencePrice(i: OkxInstrument): Promise<Decimal> {
    const symbol = symbolOf(i.instId) ?? '';
    const seen = this.price?.(symbol);
    if (seen !== undefined && seen > 0) return new Decimal(seen);
    const rows = await this.client.publicGet('/api/v5/market/ticker', { instId: i.instId });
    const row = readVenueAnswer(TickerRows, rows, 'the price', VENUE).find((t) => t.instId === i.instId);
    if (row === undefined) throw exchangeErrors.noPrice();
    return new Decimal(row.last);
  }
}
