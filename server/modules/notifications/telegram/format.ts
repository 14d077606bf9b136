import type { OrderResponse, OrderVenue, Position } from '../../../../src/contracts/trading';
import { venueLabel } from '../../../../src/contracts/venues';
import { signedUsdt } from '../../trading/trade-log';
import type { Note } from '../channels';

/** Telegram's limit for a message's text. */
export const MAX_TEXT = 4096;

/** Text for `parse_mode: 'HTML'`: only these three characters are markup there. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A note as an HTML message: the title in bold, the body, then the link. */
export function noteText(note: Note): string {
  const title = `<b>${escapeHtml(cut(note.title, 300))}</b>`;
  const link = note.url ? `\n${escapeHtml(note.url)}` : '';
  const room = MAX_TEXT - title.length - link.length - 2;
  const body = note.body.trim() === '' ? '' : `\n${cut(escapeHtml(note.body.trim()), room)}`;
  return `${title}${body}${link}`;
}

/** "paper", "Bybit live key abcd…wxyz": where an order went, as the server's answer named it. */
export function venueText(venue: OrderVenue): string {
  if (venue.mode === 'paper') return 'paper';
  const on = venue.venue === 'paper' ? '' : `${venueLabel(venue.venue)} `;
  return venue.keyHint === null ? `${on}${venue.mode} key` : `${on}${venue.mode} key ${venue.keyHint}`;
}

/** "Bought 0.0015 BTCUSDT at 65000.1 on paper (150.00 USDT)." from the order's answer. */
export function fillText(fill: OrderResponse): string {
  const verb = fill.side === 'buy' ? 'Bought' : 'Sold';
  const note = fill.note ? ` ${fill.note}` : '';
  return (
    `${verb} ${fill.quantity} ${fill.symbol} at ${fill.price} on ${venueText(fill.account)} ` +
    `(${fill.notional.toFixed(2)} USDT).${note}`
  );
}

export function positionsText(positions: readonly Position[], venue: OrderVenue): string {
  if (positions.length === 0) return `No open positions (${venueText(venue)}).`;
  const lines = positions.map(
    (p) =>
      `${p.symbol} ${p.side} ${p.size} @ ${p.entryPrice} · mark ${p.markPrice} · ` +
      `P&L ${signedUsdt(p.unrealizedPnl)} USDT (${signedUsdt(p.roe * 100)}%)`,
  );
  return [`Open positions (${venueText(venue)}):`, ...lines].join('\n');
}

export const HELP_TEXT = [
  'Commands:',
  '/positions – open positions',
  '/pnl – unrealised P&L and equity',
  '/rules off – kill switch: stop every automated order',
  '/flatten – close every open position (asks first)',
  '/unlink – stop notifications to this chat',
  '/help – this list',
].join('\n');

export const HOW_TO_LINK =
  'This chat is not linked. In the console, type: telegram link (or use Settings › Notifications), then open the link it prints.';
