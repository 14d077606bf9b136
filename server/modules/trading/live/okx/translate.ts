import Decimal from 'decimal.js';
import type { AccountUpdateEvent, ExchangeEvent, OrderTradeUpdateEvent } from '../../exchange';
import { AlgoRow, PositionRow, StreamOrder, type OkxInstrument } from './answers';
import { conditionalOf } from './conditionals';
import { sideOf } from './shapes';
import { appIdOf, coinsOf, symbolOf } from './symbols';

/** What one push of the private stream comes to: our events, and the rows dropped. */
export interface Translated {
  events: ExchangeEvent[];
  /** Rows of a channel the adapter reads that could not be read (the channel's name, once per row). */
  dropped: string[];
}

/** The swap of an instId (its contract value), or undefined when OKX does not list it as ours. */
export type InstrumentOf = (instId: string) => Promise<Pick<OkxInstrument, 'ctVal'> | undefined>;

/**
 * One push of OKX's private stream in Binance's event shapes, contracts turned into coins:
 * - each row of `orders` that carries a fill (`fillSz` > 0) is an ORDER_TRADE_UPDATE (its fee is
 *   `fillFee`, negative when charged; its PnL `fillPnl`; `z` what the order filled so far);
 * - the net rows of `positions` are one ACCOUNT_UPDATE (the amount signed: a short is negative);
 * - each row of `orders-algo` and `algo-advance` is an ALGO_UPDATE.
 * Rows of other instruments than USDT swaps are not ours; a row that cannot be read is dropped and named.
 */
export async function translatePush(
  channel: string,
  rows: readonly unknown[],
  instrumentOf: InstrumentOf,
  at: number,
): Promise<Translated> {
  const out: Translated = { events: [], dropped: [] };
  const ours = async (row: unknown) => {
    const instId = (row as { instId?: unknown }).instId;
    const symbol = typeof instId === 'string' ? symbolOf(instId) : null;
    const instrument = symbol === null ? undefined : await instrumentOf(instId as string);
    return symbol === null || instrument === undefined ? null : { symbol, instrument };
  };
  if (channel === 'orders') {
    for (const row of rows) {
      const mine = await ours(row);
      if (mine === null) continue;
      const parsed = StreamOrder.safeParse(row);
      if (!parsed.success) out.dropped.push(channel);
      else if (new Decimal(parsed.data.fillSz).gt(0)) {
        out.events.push(tradeUpdateOf(parsed.data, mine.symbol, mine.instrument, at));
      }
    }
  } else if (channel === 'positions') {
    const positions: AccountUpdateEvent['a']['P'] = [];
    for (const row of rows) {
      const mine = await ours(row);
      if (mine === null) continue;
      const parsed = PositionRow.safeParse(row);
      if (!parsed.success) {
        out.dropped.push(channel);
        continue;
      }
      const p = parsed.data;
      if (p.posSide !== 'net') continue;
      positions.push({
        s: mine.symbol,
        pa: coinsOf(p.pos, mine.instrument).toFixed(),
        ep: p.avgPx,
        bep: new Decimal(p.bePx).isZero() ? p.avgPx : p.bePx,
        cr: '0',
        up: p.upl,
        mt: 'isolated',
        iw: p.mgnMode === 'isolated' ? p.margin : p.imr,
        ps: 'BOTH',
      });
    }
    if (positions.length > 0) {
      out.events.push({ e: 'ACCOUNT_UPDATE', E: at, T: at, a: { m: 'ORDER', B: [], P: positions } });
    }
  } else if (channel === 'orders-algo' || channel === 'algo-advance') {
    for (const row of rows) {
      const mine = await ours(row);
      if (mine === null) continue;
      const parsed = AlgoRow.safeParse(row);
      const leg = parsed.success ? conditionalOf(parsed.data, mine.instrument) : null;
      if (!parsed.success) out.dropped.push(channel);
      else if (leg !== null) {
        out.events.push({ e: 'ALGO_UPDATE', E: at, T: leg.updateTime, order: leg, reason: null });
      }
    }
  }
  return out;
}

function tradeUpdateOf(
  x: ReturnType<typeof StreamOrder.parse>,
  symbol: string,
  i: Pick<OkxInstrument, 'ctVal'>,
  at: number,
): OrderTradeUpdateEvent {
  return {
    e: 'ORDER_TRADE_UPDATE',
    E: at,
    T: typeof x.fillTime === 'number' ? x.fillTime : x.uTime,
    o: {
      s: symbol,
      c: appIdOf(x.clOrdId) ?? x.clOrdId,
      S: sideOf(x.side),
      o: 'MARKET',
      q: coinsOf(x.sz, i).toFixed(),
      ap: x.avgPx,
      x: 'TRADE',
      X: 'FILLED',
      i: x.ordId,
      l: coinsOf(x.fillSz, i).toFixed(),
      z: coinsOf(x.accFillSz, i).toFixed(),
      L: x.fillPx,
      n: x.fillFeeCcy === '' || x.fillFeeCcy === 'USDT' ? new Decimal(x.fillFee).neg().toFixed() : null,
      N: 'USDT',
      rp: x.fillPnl,
      R: x.reduceOnly,
    },
  };
}
