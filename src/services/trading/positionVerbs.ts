import type { Position } from '../../contracts/trading';
import { formatSize } from './format';

/**
 * The position verbs' words: `close btc 50%`, `close btc 1/3`, `flip btc`, and the question the
 * positions pane asks before each (`Close 50% of LONG 0.05 BTC/USDT? Enter / Esc`).
 */

export type ShareParse = { ok: true; share: number; text: string } | { ok: false; message: string };

const INVALID = (text: string) =>
  `Invalid share: '${text}'. Use a percent (close btc 50%) or a fraction (close btc 1/3).`;
const RANGE = 'The share must be above 0% and at most 100%.';

/** `50%` → 0.5, `1/3` → 0.333…, `100%` → 1; anything else, a sentence saying what to type. */
export function parseShare(text: string): ShareParse {
  const t = text.trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(t);
  if (pct) {
    const n = Number(pct[1]);
    return n > 0 && n <= 100
      ? { ok: true, share: n / 100, text: `${Number(n.toFixed(2))}%` }
      : { ok: false, message: RANGE };
  }
  const frac = /^(\d+)\/(\d+)$/.exec(t);
  if (frac) {
    const [a, b] = [Number(frac[1]), Number(frac[2])];
    if (!(b > 0) || !(a > 0) || a > b) return { ok: false, message: RANGE };
    return { ok: true, share: a / b, text: `${a}/${b}` };
  }
  return { ok: false, message: INVALID(t) };
}

/** `LONG 0.05 BTC/USDT`: the position a verb acts on. */
export const positionTarget = (p: Pick<Position, 'side' | 'size' | 'symbol'>): string =>
  `${p.side.toUpperCase()} ${formatSize(p.size)} ${p.symbol}`;

export type PositionVerb = 'close' | 'half' | 'flip';

/** The question asked before a verb: what it does to which position, and how to answer. */
export function verbQuestion(verb: PositionVerb, p: Pick<Position, 'side' | 'size' | 'symbol'>): string {
  const target = positionTarget(p);
  if (verb === 'close') return `Close ${target}? Enter / Esc`;
  if (verb === 'half') return `Close 50% of ${target}? Enter / Esc`;
  const other = p.side === 'long' ? 'SHORT' : 'LONG';
  return `Flip ${target} to ${other} ${formatSize(p.size)}? Enter / Esc`;
}

/** The command line each verb runs, as the user would type it. */
export function verbLine(verb: PositionVerb, pair: string): string {
  const ticker = (pair.split('/')[0] ?? pair).toLowerCase();
  if (verb === 'close') return `close ${ticker}`;
  if (verb === 'half') return `close ${ticker} 50%`;
  return `flip ${ticker}`;
}

const KEYS: Readonly<Record<string, PositionVerb>> = { c: 'close', h: 'half', f: 'flip' };

/** The verb a plain key press on a focused position row asks for (`c`, `h`, `f`), or null. */
export function verbOfKey(press: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}): PositionVerb | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  return KEYS[press.key] ?? null;
}
