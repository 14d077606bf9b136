import Decimal from 'decimal.js';
import type { OrderResponse, TradeSource, TradesPage } from '../../../src/contracts/trading';
import type { ResolvedAccount } from './accounts';
import type { NewTrade } from './trades.repo';

/** What placed a fill: by hand, a card, or a rule (its id and name). */
export interface TradeOrigin {
  source: TradeSource;
  ruleId?: string;
  ruleName?: string;
}

/** Where fills are written down (the trade history) and read back a page at a time. */
export interface TradeLog {
  record(userId: string, fill: NewTrade): Promise<void>;
  page(
    userId: string,
    opts: { before?: number; limit: number; account?: string },
  ): Promise<TradesPage['trades']>;
}

/** The history's row of a fill on `where`. */
export function tradeOf(
  where: Pick<ResolvedAccount, 'name' | 'mode' | 'keyHint'>,
  fill: OrderResponse,
  origin: TradeOrigin,
): NewTrade {
  return {
    account: where.name,
    accountMode: where.mode,
    keyHint: where.keyHint,
    orderId: fill.id,
    symbol: fill.symbol,
    side: fill.side,
    quantity: fill.quantity,
    price: fill.price,
    realizedPnl: fill.realizedPnl,
    fee: fill.fee,
    source: origin.source,
    ruleId: origin.ruleId ?? null,
    ruleName: origin.ruleName ?? null,
  };
}

/** `+1.23` / `-0.40` / `0.00`: a realised PnL with its sign, 2 decimals. */
export function signedUsdt(value: number): string {
  const text = Math.abs(value).toFixed(2);
  if (text === '0.00') return text;
  return value > 0 ? `+${text}` : `-${text}`;
}

/** `Closed ETH/USDT long: 0.159 at 3147.53, realised +1.23 USDT, fee 0.25 USDT.` */
export function closedText(fill: OrderResponse): string {
  const side = fill.side === 'sell' ? 'long' : 'short';
  return (
    `Closed ${fill.symbol} ${side}: ${fill.quantity} at ${fill.price}, ` +
    `realised ${signedUsdt(fill.realizedPnl)} USDT, fee ${fill.fee.toFixed(2)} USDT.`
  );
}

/** `Closed 2 positions: BTC/USDT, ETH/USDT; realised -3.10 USDT, fee 0.52 USDT.` */
export function closedAllText(fills: readonly OrderResponse[]): string {
  const n = fills.length;
  const pnl = fills.reduce((sum, f) => sum.plus(f.realizedPnl), new Decimal(0));
  const fee = fills.reduce((sum, f) => sum.plus(f.fee), new Decimal(0));
  return (
    `Closed ${n} position${n === 1 ? '' : 's'}: ${fills.map((f) => f.symbol).join(', ')}; ` +
    `realised ${signedUsdt(pnl.toNumber())} USDT, fee ${fee.toFixed(2)} USDT.`
  );
}
