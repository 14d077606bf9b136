import { sizeText, usdt } from '../../contracts/sizing';
import type { OrderPreview, OrderResponse, OrderVenue, PositionChange } from '../../contracts/trading';
import { formatPnl, formatPrice } from './format';
import { accountName, balanceSource, isPaper } from './venueNames';

const sideWord = (side: 'buy' | 'sell'): string => (side === 'buy' ? 'LONG' : 'SHORT');

/** docs/product.md §5 and §8 texts for trading, word for word (ours are marked). */
export const TRADING_TEXT = {
  loginToTrade: 'Please log in to trade.',
  totalNotPositive: 'Total must be greater than zero.',
  orderFailed: 'Failed to place order.',
  orderSucceeded: (id: string) => `Success! Order ID: ${id}`,
  fetchPositionsFailed: 'Failed to fetch positions.',
  confirmClose: (symbol: string) => `Are you sure you want to close the ${symbol} position?`,
  closeFailed: (detail: string) => `Failed to close position: ${detail}`,
  unknownError: 'Unknown error',
  nothingToClose: 'There are no open positions to close.',
  confirmCloseAll: (n: number) =>
    n === 1
      ? 'Are you sure you want to close the one open position? This action cannot be undone.'
      : `Are you sure you want to close all ${n} open positions? This action cannot be undone.`,
  closeAllFailed: (detail: string) => `Failed to close all positions: ${detail}`,
  closeAllSent: 'Successfully sent requests to close all positions.',
  loginToViewPositions: 'Please log in to view positions.',
  noPositions: 'No open positions.',
  /** Ours: the user said no to the first order on a real-exchange account. */
  orderCancelled: 'Order cancelled.',
  /** Ours: the line under a fill, by the account (its venue and mode) the server's answer says it went to. */
  venueNote: (account: OrderVenue): string => {
    if (isPaper(account)) return 'Paper exchange: no real funds.';
    const key = account.keyHint === null ? '' : ` (key ${account.keyHint})`;
    const funds = account.mode === 'live' ? 'real funds' : 'simulated funds';
    return `${accountName(account)} account${key}: ${funds}.`;
  },
  /** Ours: what the positions socket's liquidation message turns into. */
  liquidated: (pair: string, price: string) => `Position ${pair} was liquidated at ${price}.`,
  /**
   * Ours: what an order filled, in the same words wherever it was placed (terminal, CLI, trade panel,
   * a card's quick trade): `Filled LONG 0.002 BTC ≈ 201.40 USDT of BTC/USDT at 100,700.0000, fee 0.10 USDT.`
   * followed by the sizing note when the fill is not worth exactly what was asked.
   */
  filled: (fill: OrderResponse) => withNote(filledSentence(fill), fill.note),
  /**
   * Ours: what a close filled, from the server's answer: `Closed LONG 0.159 ETH ≈ 500.45 USDT of ETH/USDT
   * at 3,147.5300, realised +1.23 USDT, fee 0.25 USDT.` (the side is the position's, not the order's).
   */
  closed: (fill: OrderResponse) =>
    withNote(
      `Closed ${fill.side === 'sell' ? 'LONG' : 'SHORT'} ${sizeText(fill.symbol, fill.quantity, fill.notional)} ` +
        `of ${fill.symbol} at ${formatPrice(fill.symbol, fill.price)}, realised ${realised(fill.realizedPnl)} USDT, ` +
        `fee ${usdt(fill.fee)} USDT.`,
      fill.note,
    ),
  /** Ours: the sum of a Close All: `Closed 2 positions: realised -3.10 USDT, fee 0.52 USDT in all.` */
  closedAll: (fills: readonly OrderResponse[]) => {
    const pnl = fills.reduce((sum, f) => sum + f.realizedPnl, 0);
    const fee = fills.reduce((sum, f) => sum + f.fee, 0);
    const n = fills.length;
    return `Closed ${n} position${n === 1 ? '' : 's'}: realised ${realised(pnl)} USDT, fee ${usdt(fee)} USDT in all.`;
  },
  /** Ours: the same for an order not sent yet (the previews). */
  wouldFill: (p: OrderPreview) =>
    `${sideWord(p.side)} ${sizeText(p.symbol, p.quantity, p.notional)} of ${p.symbol} at ${formatPrice(p.symbol, p.price)}`,
  /** Ours: the line under `balance`, naming the venue whose account it is (`Bybit USDT perpetuals (linear).`). */
  balanceSource,
  /** Ours: the symbol's minimum order, shown beside every amount input and preview. */
  minimum: (minNotional: number) => `min. ${minNotional} USDT`,
} as const;

/**
 * A fill in words, led by what it did to the position when it did more than open one:
 * `Reduced your SOL short from 1.2 to 0.68 SOL: LONG 0.52 SOL ≈ 78.05 USDT at 150.1000, realised -3.10 USDT,
 * fee 0.04 USDT.`, `Closed your SOL short of 1.2 SOL: …`, `Flipped your SOL short of 0.5 SOL to a long of
 * 0.02 SOL: …`; an order that adds says what the position is now.
 */
function filledSentence(fill: OrderResponse): string {
  const order = `${sideWord(fill.side)} ${sizeText(fill.symbol, fill.quantity, fill.notional)}`;
  const at = `at ${formatPrice(fill.symbol, fill.price)}`;
  const fee = `fee ${usdt(fill.fee)} USDT.`;
  const change = fill.position;
  const opened = `Filled ${order} of ${fill.symbol} ${at}, ${fee}`;
  if (change === null || change.effect === 'open') return opened;
  const base = fill.symbol.split('/')[0] ?? fill.symbol;
  if (change.effect === 'add') {
    return change.after === null
      ? opened
      : `${opened} Your ${base} ${change.after.side} is now ${held(change.after.size, base)}.`;
  }
  const before = change.before;
  if (before === null) return opened;
  const money = `realised ${realised(fill.realizedPnl)} USDT, ${fee}`;
  return `${changeWords(change, before, base)}: ${order} ${at}, ${money}`;
}

function changeWords(
  change: PositionChange,
  before: NonNullable<PositionChange['before']>,
  base: string,
): string {
  const after = change.after;
  if (change.effect === 'reduce' && after !== null) {
    return `Reduced your ${base} ${before.side} from ${held(before.size, base, false)} to ${held(after.size, base)}`;
  }
  if (change.effect === 'flip' && after !== null) {
    return `Flipped your ${base} ${before.side} of ${held(before.size, base)} to a ${after.side} of ${held(after.size, base)}`;
  }
  return `Closed your ${base} ${before.side} of ${held(before.size, base)}`;
}

/** `0.68 SOL` (or `0.68` alone): a position's size as the venue gave it. */
function held(size: number, base: string, unit = true): string {
  return unit ? `${size} ${base}` : String(size);
}

/** A realised PnL with its sign; an exact zero is `0.00`, not the table's `$--`. */
function realised(value: number): string {
  const text = formatPnl(value);
  return text === '$--' ? '0.00' : text;
}

function withNote(sentence: string, note: string | null): string {
  return note === null ? sentence : `${sentence} ${note}`;
}
