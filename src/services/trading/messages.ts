import { sizeText, usdt } from '../../contracts/sizing';
import type { OrderPreview, OrderResponse } from '../../contracts/trading';
import { formatTradePrice } from './format';

const sideWord = (side: 'buy' | 'sell'): string => (side === 'buy' ? 'LONG' : 'SHORT');

/** Spec §5 and §8 texts for trading, word for word (ours are marked). */
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
  /** Ours: the line under a fill, by the account it went to. */
  venueNote: {
    paper: 'Paper exchange: no real funds.',
    live: 'Binance LIVE account: real funds.',
    demo: 'Binance DEMO account: simulated funds.',
  },
  /** Ours: what the positions socket's liquidation message turns into. */
  liquidated: (pair: string, price: string) => `Position ${pair} was liquidated at ${price}.`,
  /**
   * Ours: what an order filled, in the same words wherever it was placed (terminal, CLI, trade panel,
   * a card's quick trade): `Filled LONG 0.002 BTC ≈ 201.40 USDT of BTC/USDT at 100,700.0000, fee 0.10 USDT.`
   * followed by the sizing note when the fill is not worth exactly what was asked.
   */
  filled: (fill: OrderResponse) =>
    withNote(
      `Filled ${sideWord(fill.side)} ${sizeText(fill.symbol, fill.quantity, fill.notional)} of ${fill.symbol} ` +
        `at ${formatTradePrice(fill.price)}, fee ${usdt(fill.fee)} USDT.`,
      fill.note,
    ),
  /** Ours: the same for an order not sent yet (the previews). */
  wouldFill: (p: OrderPreview) =>
    `${sideWord(p.side)} ${sizeText(p.symbol, p.quantity, p.notional)} of ${p.symbol} at ${formatTradePrice(p.price)}`,
  /**
   * Ours: the live exchange's name. Binance writes "USDⓈ-M"; no font the app ships or can count on
   * (DejaVu, Liberation, Consolas) has the circled S, so it is written USDS-M, as Binance's API does.
   */
  liveFutures: 'Binance USDS-M futures.',
  /** Ours: the symbol's minimum order, shown beside every amount input and preview. */
  minimum: (minNotional: number) => `min. ${minNotional} USDT`,
} as const;

function withNote(sentence: string, note: string | null): string {
  return note === null ? sentence : `${sentence} ${note}`;
}
