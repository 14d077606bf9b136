import Decimal from 'decimal.js';
import type { CloseReason, OrderResponse, TradeSource, TradesPage } from '../../../src/contracts/trading';
import type { ResolvedAccount } from './accounts';
import type { HistoryFill, NewTrade } from './trades.repo';

/** What placed a fill: by hand, a card, or a rule (its id and name). */
export interface TradeOrigin {
  source: TradeSource;
  ruleId?: string;
  ruleName?: string;
  /** Why a closing order was sent, when not by hand (a stop, a time exit, a flatten…). */
  reason?: CloseReason;
}

/** A fill's fee and realised PnL; null while the venue has not told them (unknown, never 0). */
export interface FillFees {
  fee: number | null;
  realizedPnl: number | null;
}

/** Where fills are written down (the trade history) and read back a page at a time. */
export interface TradeLog {
  record(userId: string, fill: NewTrade): Promise<void>;
  /** Fills in the fee and realised PnL of a recorded fill that had them unknown. */
  fillFees(
    userId: string,
    account: string,
    orderId: string,
    fees: { fee: number; realizedPnl: number },
  ): Promise<void>;
  page(
    userId: string,
    opts: { before?: number; limit: number; account?: string },
  ): Promise<TradesPage['trades']>;
  /** Every fill of the user (of one account when given), oldest first, up to the newest `limit`. */
  history(userId: string, opts: { account?: string; limit: number }): Promise<HistoryFill[]>;
}

/** The history's row of a fill on `where`; `fees` as the venue told them (the answer's by default). */
export function tradeOf(
  where: Pick<ResolvedAccount, 'name' | 'venue' | 'mode' | 'keyHint'>,
  fill: OrderResponse,
  origin: TradeOrigin,
  fees: FillFees = { fee: fill.fee, realizedPnl: fill.realizedPnl },
): NewTrade {
  return {
    account: where.name,
    accountMode: where.mode,
    venue: where.venue,
    keyHint: where.keyHint,
    orderId: fill.id,
    symbol: fill.symbol,
    side: fill.side,
    quantity: fill.quantity,
    price: fill.price,
    realizedPnl: fees.realizedPnl,
    fee: fees.fee,
    source: origin.source,
    ruleId: origin.ruleId ?? null,
    ruleName: origin.ruleName ?? null,
    reason: origin.reason ?? null,
  };
}

/** `+1.23` / `-0.40` / `0.00`: a realised PnL with its sign, 2 decimals. */
export function signedUsdt(value: number): string {
  const text = Math.abs(value).toFixed(2);
  if (text === '0.00') return text;
  return value > 0 ? `+${text}` : `-${text}`;
}

/** What a close says of realised PnL and fee the venue has not told yet. */
const FEES_NOT_TOLD = 'realised PnL and fee not reported by Binance yet';

/**
 * `Closed ETH/USDT long: 0.159 at 3147.53, realised +1.23 USDT, fee 0.25 USDT.`; without `feesKnown`,
 * the figures are said to be not reported yet instead of 0.
 */
export function closedText(fill: OrderResponse, feesKnown = true): string {
  const side = fill.side === 'sell' ? 'long' : 'short';
  const money = feesKnown
    ? `realised ${signedUsdt(fill.realizedPnl)} USDT, fee ${fill.fee.toFixed(2)} USDT`
    : FEES_NOT_TOLD;
  return `Closed ${fill.symbol} ${side}: ${fill.quantity} at ${fill.price}, ${money}.`;
}

/**
 * `Closed 2 positions: BTC/USDT, ETH/USDT; realised -3.10 USDT, fee 0.52 USDT.`; without `feesKnown`
 * (some fill's figures not told yet) no sum is given.
 */
export function closedAllText(fills: readonly OrderResponse[], feesKnown = true): string {
  const n = fills.length;
  const pnl = fills.reduce((sum, f) => sum.plus(f.realizedPnl), new Decimal(0));
  const fee = fills.reduce((sum, f) => sum.plus(f.fee), new Decimal(0));
  const money = feesKnown
    ? `realised ${signedUsdt(pnl.toNumber())} USDT, fee ${fee.toFixed(2)} USDT`
    : FEES_NOT_TOLD;
  return `Closed ${n} position${n === 1 ? '' : 's'}: ${fills.map((f) => f.symbol).join(', ')}; ${money}.`;
}
