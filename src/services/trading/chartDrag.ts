import type { PositionProtection } from '../../contracts/protection';
import { fieldsOf } from './protectionEditor';
import type { ChartLine, PositionChart } from './chartLines';

/**
 * Moving a stop or a target by dragging its line on the chart: which line the pointer took, what the
 * ghost line says as it follows, the question asked on release, and the `protect` line it runs (the
 * terminal's own command, so the answer is printed there too).
 */

/** How far from a line (CSS pixels) the pointer still takes it; a finger gets more room. */
export const GRAB_PX = { mouse: 6, touch: 14 } as const;

/** The draggable line nearest to `y` within `tolerance` pixels, or null. */
export function grabbedLine(
  chart: PositionChart | null,
  y: number,
  toY: (price: number) => number | null,
  tolerance: number,
): ChartLine | null {
  let best: { line: ChartLine; distance: number } | null = null;
  for (const line of chart?.lines ?? []) {
    if (!line.draggable) continue;
    const at = toY(line.price);
    if (at === null) continue;
    const distance = Math.abs(at - y);
    if (distance <= tolerance && (best === null || distance < best.distance)) best = { line, distance };
  }
  return best?.line ?? null;
}

/** `price` rounded to the chart's `precision` decimals. */
export function roundPrice(price: number, precision: number): number {
  const factor = 10 ** precision;
  return Math.round(price * factor) / factor;
}

/** `94,120.00` at the chart's precision. */
export function dragPriceText(price: number, precision: number): string {
  return price.toLocaleString('en-US', {
    minimumFractionDigits: precision,
    maximumFractionDigits: precision,
  });
}

/** `−2.1 %`, `+0.4 %`: how far `price` is from the entry (a true minus sign, as the confirm shows it). */
export function fromEntryText(price: number, entry: number): string {
  if (!(entry > 0)) return '';
  const pct = ((price - entry) / entry) * 100;
  const text = Math.abs(pct).toFixed(1);
  if (text === '0.0') return '0.0 %';
  return `${pct < 0 ? '\u2212' : '+'}${text} %`;
}

const LEG_WORD = { sl: 'stop', tp: 'target' } as const;

export type MovableKind = keyof typeof LEG_WORD;

/** The ghost line's words while dragging: `SL 94,120.00 (−2.1 %)`. */
export function ghostText(kind: MovableKind, price: number, entry: number, precision: number): string {
  return `${kind.toUpperCase()} ${dragPriceText(price, precision)} (${fromEntryText(price, entry)})`;
}

/** The confirm on release: `Move stop to 94,120.00 (−2.1 %)?`. */
export function moveQuestion(kind: MovableKind, price: number, entry: number, precision: number): string {
  return `Move ${LEG_WORD[kind]} to ${dragPriceText(price, precision)} (${fromEntryText(price, entry)})?`;
}

/** The confirm's line saying what the keys do, and what is kept. */
export const MOVE_DETAILS = {
  keys: 'Enter moves it, Esc keeps it where it is.',
  kept: 'The other legs are sent again as they are.',
} as const;

/** A price as the prompt reads it: plain digits, no exponent, no trailing zeros. */
function plain(price: number, precision: number): string {
  return price.toFixed(Math.max(0, precision)).replace(/\.?0+$/, '');
}

/**
 * The `protect` line that moves one leg to `price` and sends the others again as they stand (the
 * command replaces the whole protection, as the positions pane's edit form does): `protect btc sl
 * 94120 tp 105000 trail 1% exit 25m`. `now` is for the minutes left to a time exit.
 */
export function moveCommand(
  ticker: string,
  protection: PositionProtection,
  kind: MovableKind,
  price: number,
  precision: number,
  now: number,
): string {
  const fields = fieldsOf(protection, now);
  const moved = plain(roundPrice(price, precision), precision);
  const words: string[] = ['protect', ticker.toLowerCase()];
  const stop = kind === 'sl' ? moved : fields.stopLoss;
  const target = kind === 'tp' ? moved : fields.takeProfit;
  if (stop !== '') words.push('sl', stop);
  if (target !== '') words.push('tp', target);
  if (fields.trailing !== '') words.push('trail', `${fields.trailing}%`);
  if (fields.exitAfter !== '') words.push('exit', `${fields.exitAfter}m`);
  return words.join(' ');
}
