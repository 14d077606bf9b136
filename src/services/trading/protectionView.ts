import {
  hasStop,
  protectionPrices,
  protectionProblem,
  type LegPlace,
  type LegState,
  type PositionProtection,
  type ProtectionInput,
  type ProtectionReceipt,
} from '../../contracts/protection';
import type { AccountVenue } from '../../contracts/venues';
import { failure, info, muted, success, type OutputLine } from '../terminal/output';
import { formatAgo, formatPnl, formatPrice } from './format';
import { onVenue } from './venueNames';
import { utcStamp } from '../time';

/**
 * A position's protection in words and cells, the same in the terminal, the CLI and the positions
 * pane: each leg, where it rests and its state, always as the server said (nothing here guesses a state).
 */

/** Where a leg rests, in words: an exchange leg on the account's venue (`on Bybit`), a time exit in the app. */
export function restsText(on: LegPlace, venue: AccountVenue): string {
  return on === 'app' ? 'in the app' : onVenue(venue);
}

/** A leg's state as the pane and the terminal say it: `missing` is being placed again. */
export const STATE_TEXT: Record<LegState, string> = {
  placing: 'placing',
  resting: 'resting',
  missing: 're-placing',
  triggered: 'triggered',
  refused: 'refused',
};

export type LegKind = 'sl' | 'tp' | 'trail' | 'exit';

/** One leg as a cell shows it. */
export interface LegView {
  kind: LegKind;
  /** `SL`, `TP`, `Trail`, `Exit`. */
  label: string;
  /** `98,000.0000`, `1%`, `in 25m`. */
  value: string;
  /** `exchange` or `app`: the badge. */
  place: LegPlace;
  /** `on the paper exchange`, `on Bybit`, `in the app`: the badge's title. */
  placeText: string;
  /** Null for a time exit, which has no venue state. */
  state: LegState | null;
  stateText: string | null;
}

export interface ProtectionView {
  legs: readonly LegView[];
  /** No stop-loss and no trailing stop, or both fired or refused. */
  unprotected: boolean;
}

export const UNPROTECTED_TEXT = 'unprotected';

const pct = (n: number): string => `${Number(n.toFixed(4))}%`;

/** Whether any leg is set, fired or not. */
export const hasLegs = (p: PositionProtection): boolean =>
  p.stop_loss !== null || p.take_profit !== null || p.trailing !== null || p.exit_at !== null;

/** `in 25m` until the time exit, `due` once it has passed (the server closes it). */
export function exitText(exitAt: string, now: number): string {
  const at = Date.parse(exitAt);
  if (!Number.isFinite(at)) return exitAt;
  return at <= now ? 'due' : `in ${formatAgo(at - now)}`;
}

/** `2026-11-26 14:30:00 UTC`: when the time exit closes the position. */
export function exitTime(exitAt: string): string {
  const at = new Date(exitAt);
  if (!Number.isFinite(at.getTime())) return exitAt;
  return utcStamp(at);
}

/**
 * The legs of a protection, in the order SL, TP, trailing stop, time exit. With `now` the time exit
 * reads `in 25m`; without (a listing printed once), its time.
 */
export function protectionView(
  p: PositionProtection,
  venue: AccountVenue,
  now: number | null,
  symbol: string,
): ProtectionView {
  const legs: LegView[] = [];
  const priced = (kind: 'sl' | 'tp', label: string, leg: PositionProtection['stop_loss']): void => {
    if (leg === null) return;
    legs.push({
      kind,
      label,
      value: formatPrice(symbol, leg.price),
      place: leg.on,
      placeText: restsText(leg.on, venue),
      state: leg.state,
      stateText: STATE_TEXT[leg.state],
    });
  };
  priced('sl', 'SL', p.stop_loss);
  priced('tp', 'TP', p.take_profit);
  if (p.trailing !== null) {
    legs.push({
      kind: 'trail',
      label: 'Trail',
      value: pct(p.trailing.callback_pct),
      place: p.trailing.on,
      placeText: restsText(p.trailing.on, venue),
      state: p.trailing.state,
      stateText: STATE_TEXT[p.trailing.state],
    });
  }
  if (p.exit_at !== null) {
    legs.push({
      kind: 'exit',
      label: 'Exit',
      value: now === null ? exitTime(p.exit_at) : exitText(p.exit_at, now),
      place: 'app',
      placeText: restsText('app', venue),
      state: null,
      stateText: null,
    });
  }
  return { legs, unprotected: !hasStop(p) };
}

/** `SL 98,000.0000 resting · TP 105,000.0000 placing`, or `unprotected` (then the legs left, if any). */
export function protectionCellText(
  p: PositionProtection,
  venue: AccountVenue,
  now: number | null,
  symbol: string,
): string {
  const view = protectionView(p, venue, now, symbol);
  const legs = view.legs.map((l) => [l.label, l.value, l.stateText].filter((t) => t !== null).join(' '));
  return [...(view.unprotected ? [UNPROTECTED_TEXT] : []), ...legs].join(' · ');
}

const LEG_NAMES: Record<LegKind, string> = {
  sl: 'Stop loss',
  tp: 'Take profit',
  trail: 'Trailing stop',
  exit: 'Time exit',
};

const legLine = (text: string, state: LegState | null): OutputLine => {
  if (state === 'refused') return failure(text);
  if (state === 'resting') return success(text);
  if (state === 'triggered') return muted(text);
  return info(text);
};

/**
 * The lines a protection answer prints: each leg with its state and where it rests, how long the
 * position was open without its protection, and the server's note. `venue` is the account's the answer
 * names (an order's fill) or the one the terminal is on.
 */
export function receiptLines(receipt: ProtectionReceipt, venue: AccountVenue, symbol: string): OutputLine[] {
  const lines: OutputLine[] = [];
  const priced = (kind: 'sl' | 'tp', leg: ProtectionReceipt['stop_loss']): void => {
    if (leg === null) return;
    const text = `${LEG_NAMES[kind]} ${formatPrice(symbol, leg.price)}: ${STATE_TEXT[leg.state]} ${restsText(leg.on, venue)}.`;
    lines.push(legLine(text, leg.state));
  };
  priced('sl', receipt.stop_loss);
  priced('tp', receipt.take_profit);
  if (receipt.trailing !== null) {
    const t = receipt.trailing;
    const text = `${LEG_NAMES.trail} ${pct(t.callback_pct)}: ${STATE_TEXT[t.state]} ${restsText(t.on, venue)}.`;
    lines.push(legLine(text, t.state));
  }
  if (receipt.exit_at !== null) {
    lines.push(info(`${LEG_NAMES.exit} at ${exitTime(receipt.exit_at)}: ${restsText('app', venue)}.`));
  }
  if (lines.length === 0) lines.push(muted('No protection on the position.'));
  if (receipt.unprotected_ms !== null) {
    lines.push(muted(`Unprotected for ${Math.round(receipt.unprotected_ms)} ms.`));
  }
  if (receipt.note !== null && receipt.note !== '') {
    const refused = [receipt.stop_loss, receipt.take_profit, receipt.trailing].some(
      (leg) => leg?.state === 'refused',
    );
    lines.push(refused ? failure(receipt.note) : info(receipt.note));
  }
  return lines;
}

/** What is printed when an order asked for protection and its answer says nothing about it. */
export const RECEIPT_MISSING =
  "The server's answer does not say whether the protection was placed: check `positions`.";

/** `30m`, `2h`, `1d`, `90m`: a time exit's wait as typed. */
export function minutesText(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/** What an order will be protected with, before it is sent: each leg's price and money at it. */
export interface ProtectionPreview {
  /** `SL 98,683.4380 (-4.03 USDT) on the paper exchange · TP …`; empty when none was asked. */
  text: string;
  /** Why a stop or target at these prices cannot rest (it would fire at once), or null. */
  problem: string | null;
}

/**
 * The protection of an order of `quantity` at `price` (the preview's): the stop's and the target's
 * prices, the loss and the gain at each (before fees), the trailing stop's first distance, the time
 * exit, and where each will rest. Percentages are taken from `price`, which the fill is expected near.
 */
export function protectionPreview(
  input: ProtectionInput,
  side: 'long' | 'short',
  quantity: number,
  price: number,
  venue: AccountVenue,
  symbol: string,
): ProtectionPreview {
  const at = (value: number | null): string => formatPrice(symbol, value);
  const dir = side === 'long' ? 1 : -1;
  const prices = protectionPrices(input, side, price);
  const exchange = restsText('exchange', venue);
  const money = (at: number): string => `${formatPnl(dir * quantity * (at - price))} USDT`;
  const parts: string[] = [];
  if (prices.stopLoss !== null) {
    parts.push(`SL ${at(prices.stopLoss)} (${money(prices.stopLoss)}) ${exchange}`);
  }
  if (prices.takeProfit !== null) {
    parts.push(`TP ${at(prices.takeProfit)} (${money(prices.takeProfit)}) ${exchange}`);
  }
  if (input.trailing_pct !== undefined) {
    const first = price * (1 - (dir * input.trailing_pct) / 100);
    parts.push(`trail ${pct(input.trailing_pct)} (${money(first)} from the best price) ${exchange}`);
  }
  if (input.exit_after_min !== undefined) {
    parts.push(`exit after ${minutesText(input.exit_after_min)} ${restsText('app', venue)}`);
  }
  return { text: parts.join(' · '), problem: protectionProblem(prices, side, price, at) };
}
