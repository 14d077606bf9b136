import { TradesPage, type Trade } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { formatAmount2, formatPnl, formatSize, formatTradePrice, pnlTone } from './format';
import type { Outcome } from './orders';

/** The trade history (`GET /api/trades`): the user's fills, newest first, a page at a time. */

export interface TradesRequest {
  limit?: number;
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** `paper` or a key id. */
  account?: string;
}

export const TRADES_TEXT = {
  none: 'No trades yet.',
  /** The Closed tab with nothing closed among the fills loaded. */
  noneClosed: 'No closed positions yet.',
  loginToView: 'Please log in to view trades.',
  failed: 'Failed to fetch trades.',
  /** What to type for the next page. */
  more: (cursor: string) => `Older trades: trades --before ${cursor}`,
} as const;

export async function fetchTrades(
  trading: ApiClient,
  request: TradesRequest = {},
): Promise<Outcome<TradesPage>> {
  const query = new URLSearchParams();
  if (request.limit !== undefined) query.set('limit', String(request.limit));
  if (request.cursor !== undefined) query.set('cursor', request.cursor);
  if (request.account !== undefined) query.set('account', request.account);
  const search = query.toString();
  try {
    return { ok: true, value: await trading.call(TradesPage, `/trades${search === '' ? '' : `?${search}`}`) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TRADES_TEXT.failed) };
  }
}

/** `GET /api/trades.csv`: every fill as a spreadsheet, newest first. */
export async function fetchTradesCsv(trading: ApiClient): Promise<Outcome<Blob>> {
  try {
    const body = await trading.send('/trades.csv', { responseType: 'blob' });
    if (!(body instanceof Blob)) return { ok: false, message: TRADES_TEXT.failed };
    return { ok: true, value: body };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TRADES_TEXT.failed) };
  }
}

/** The Closed tab: the fills that reduced or closed a position (the ones that realised PnL). */
export const CLOSED_COLUMNS = [
  'TIME (UTC)',
  'SYMBOL',
  'POSITION',
  'QTY CLOSED',
  'EXIT PRICE',
  'REALISED PNL',
  'FEE',
  'VENUE',
  'BY',
] as const;

/**
 * A fill realised PnL only by reducing, closing or flipping a position. One whose PnL the venue has not
 * told yet (null) is not called a close until it has.
 */
export const closesPosition = (trade: Pick<Trade, 'realizedPnl'>): boolean =>
  trade.realizedPnl !== null && trade.realizedPnl !== 0;

/** A fee or realised PnL the venue has not told yet: never shown as 0. */
export const UNKNOWN_CELL = '—';

/** A closing fill as the Closed tab shows it: the side is the position's, the other way from the fill. */
export function closedRow(trade: Trade): TradeRow {
  const row = tradeRow(trade);
  const cells = [...row.cells];
  cells[2] = trade.side === 'buy' ? 'SHORT' : 'LONG';
  return { ...row, cells };
}

export const TRADE_COLUMNS = [
  'TIME (UTC)',
  'SYMBOL',
  'SIDE',
  'QTY',
  'PRICE',
  'REALISED PNL',
  'FEE',
  'VENUE',
  'BY',
] as const;

/** One fill as the terminal and the Trades tab show it: every cell already formatted. */
export interface TradeRow {
  id: string;
  cells: readonly string[];
  side: 'BUY' | 'SELL';
  pnlTone: 'gain' | 'loss' | 'flat';
  /** The rule's name in full (the BY cell may be cut short), for a tooltip. */
  title: string | null;
}

/** `11-26 21:48:03`: month, day and time in UTC (the header says so). */
export function tradeTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(5, 10)} ${iso.slice(11, 19)}`;
}

/** `PAPER`, `LIVE abcd…wxyz`, `DEMO abcd…wxyz`. */
export function venueText(trade: Pick<Trade, 'account'>): string {
  const mode = trade.account.mode.toUpperCase();
  return trade.account.keyHint === null ? mode : `${mode} ${trade.account.keyHint}`;
}

/** `manual`, `card`, or `rule 'Bad news short'`. */
export function sourceText(trade: Pick<Trade, 'source' | 'ruleName'>): string {
  if (trade.source !== 'rule') return trade.source;
  return trade.ruleName === null ? 'rule' : `rule '${trade.ruleName}'`;
}

export function tradeRow(trade: Trade): TradeRow {
  const side = trade.side === 'buy' ? 'BUY' : 'SELL';
  // A realised PnL of exactly zero (an opening fill) reads 0.00, not the tables' "$--"; an unknown one "—".
  const pnl =
    trade.realizedPnl === null
      ? UNKNOWN_CELL
      : trade.realizedPnl === 0
        ? '0.00'
        : formatPnl(trade.realizedPnl);
  const fee = trade.fee === null ? UNKNOWN_CELL : trade.fee === 0 ? '0.00' : formatAmount2(trade.fee);
  return {
    id: trade.id,
    side,
    cells: [
      tradeTime(trade.time),
      trade.symbol,
      side,
      formatSize(trade.quantity),
      formatTradePrice(trade.price),
      pnl,
      fee,
      venueText(trade),
      sourceText(trade),
    ],
    pnlTone: pnlTone(trade.realizedPnl),
    title: trade.source === 'rule' ? trade.ruleName : null,
  };
}
