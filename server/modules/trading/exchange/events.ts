import type { ConditionalOrder } from './conditionals';
import type { OrderSide } from './orders';

/** User-data stream events, as Binance sends them. */
export interface AccountUpdateEvent {
  e: 'ACCOUNT_UPDATE';
  E: number;
  T: number;
  a: {
    m: 'ORDER' | 'LIQUIDATION' | 'DEPOSIT' | 'ADJUSTMENT';
    B: { a: 'USDT'; wb: string; cw: string; bc: string }[];
    P: {
      s: string;
      pa: string;
      ep: string;
      bep: string;
      cr: string;
      up: string;
      mt: 'isolated';
      iw: string;
      ps: 'BOTH';
    }[];
  };
}

export interface OrderTradeUpdateEvent {
  e: 'ORDER_TRADE_UPDATE';
  E: number;
  T: number;
  o: {
    s: string;
    c: string;
    S: OrderSide;
    o: 'MARKET' | 'LIMIT' | 'LIQUIDATION';
    q: string;
    ap: string;
    /** A limit order also tells when it starts resting (NEW) and when it ends without a fill. */
    x: 'TRADE' | 'CALCULATED' | 'NEW' | 'CANCELED' | 'EXPIRED';
    X: 'FILLED' | 'NEW' | 'CANCELED' | 'EXPIRED';
    /** A limit order's price and time in force (Binance's `p` and `f`). */
    p?: string;
    f?: 'GTC' | 'IOC' | 'GTX';
    /** Ours, on a paper fill: the order rested on the book before it filled (a maker fill). */
    rested?: boolean;
    i: string;
    l: string;
    z: string;
    L: string;
    /** Commission and realised profit of this trade; null on our own notice of a fill whose are not known yet. */
    n: string | null;
    N: 'USDT';
    rp: string | null;
    R: boolean;
  };
}

/** `ALGO_UPDATE` on the user-data stream, read into our shape: a conditional order changed state. */
export interface ConditionalUpdateEvent {
  e: 'ALGO_UPDATE';
  E: number;
  T: number;
  order: ConditionalOrder;
  /** Why it was refused or expired, when the venue says. */
  reason: string | null;
}

export type ExchangeEvent = AccountUpdateEvent | OrderTradeUpdateEvent | ConditionalUpdateEvent;
