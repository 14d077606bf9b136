import { ClosedTradesPage, TradesPage, type ClosedTrade, type Trade } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { formatAmount2, formatPnl, formatSize, formatPrice, pnlTone } from './format';
import type { Outcome } from './orders';
import { accountChip } from './venueNames';

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

/** `GET /api/trades/closed`: the parts of positions the fills closed, newest first (the Closed tab). */
export async function fetchClosedTrades(
  trading: ApiClient,
  request: { limit?: number; account?: string } = {},
): Promise<Outcome<ClosedTradesPage>> {
  const query = new URLSearchParams();
  if (request.limit !== undefined) query.set('limit', String(request.limit));
  if (request.account !== undefined) query.set('account', request.account);
  const search = query.toString();
  try {
    const path = `/trades/closed${search === '' ? '' : `?${search}`}`;
    return { ok: true, value: await trading.call(ClosedTradesPage, path) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TRADES_TEXT.failed) };
  }
}

/** The Closed tab: one row per part of a position a fill closed (a flip's close, not its opening rest). */
export const CLOSED_COLUMNS = [
  'TIME (UTC)',
  'SYMBOL',
  'POSITION',
  'QTY CLOSED',
  'ENTRY PRICE',
  'EXIT PRICE',
  'REALISED PNL',
  'FEE',
  'REASON',
  'VENUE',
  'BY',
] as const;

/** A fee or realised PnL the venue has not told yet: never shown as 0. */
export const UNKNOWN_CELL = '—';

/** One closed part as the Closed tab shows it: every cell already formatted. */
export interface ClosedRow {
  id: string;
  cells: readonly string[];
  side: 'LONG' | 'SHORT';
  pnlTone: 'gain' | 'loss' | 'flat';
  title: string | null;
}

const pnlCell = (pnl: number | null): string =>
  pnl === null ? UNKNOWN_CELL : pnl === 0 ? '0.00' : formatPnl(pnl);
const feeCell = (fee: number | null): string =>
  fee === null ? UNKNOWN_CELL : fee === 0 ? '0.00' : formatAmount2(fee);

export function closedTradeRow(c: ClosedTrade): ClosedRow {
  const side = c.side === 'long' ? 'LONG' : 'SHORT';
  return {
    id: c.id,
    side,
    cells: [
      tradeTime(c.time),
      c.symbol,
      side,
      formatSize(c.quantity),
      c.entryPrice === null ? UNKNOWN_CELL : formatPrice(c.symbol, c.entryPrice),
      formatPrice(c.symbol, c.exitPrice),
      pnlCell(c.realizedPnl),
      feeCell(c.fee),
      c.reason,
      venueText(c),
      sourceText(c),
    ],
    pnlTone: pnlTone(c.realizedPnl),
    title: c.source === 'rule' ? c.ruleName : null,
  };
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

/** `PAPER`, `BYBIT LIVE abcd…wxyz`, `OKX DEMO abcd…wxyz`: the fill's venue, mode and key. */
export function venueText(trade: Pick<Trade, 'account'>): string {
  const chip = accountChip(trade.account);
  return trade.account.keyHint === null ? chip : `${chip} ${trade.account.keyHint}`;
}

/** `manual`, `card`, or `rule 'Bad news short'`. */
export function sourceText(trade: Pick<Trade, 'source' | 'ruleName'>): string {
  if (trade.source !== 'rule') return trade.source;
  return trade.ruleName === null ? 'rule' : `rule '${trade.ruleName}'`;
}

export function tradeRow(trade: Trade): TradeRow {
  const side = trade.side === 'buy' ? 'BUY' : 'SELL';
  // A realised PnL of exactly zero (an opening fill) reads 0.00, not the tables' "$--"; an unknown one "—".
  const pnl = pnlCell(trade.realizedPnl);
  const fee = feeCell(trade.fee);
  return {
    id: trade.id,
    side,
    cells: [
      tradeTime(trade.time),
      trade.symbol,
      side,
      formatSize(trade.quantity),
      formatPrice(trade.symbol, trade.price),
      pnl,
      fee,
      venueText(trade),
      sourceText(trade),
    ],
    pnlTone: pnlTone(trade.realizedPnl),
    title: trade.source === 'rule' ? trade.ruleName : null,
  };
}
