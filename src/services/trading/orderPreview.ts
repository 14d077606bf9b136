import { effect, signal, type ReadonlySignal } from '@preact/signals-core';
import type { OrderParse, ParsedOrder } from '../../commands/grammar/order';
import { formatAmount } from '../../commands/grammar/order';
import { minimumOrder } from '../../contracts/sizing';
import { protectionAsked, type ProtectionInput } from '../../contracts/protection';
import { exchangeSymbol, type OrderPreview } from '../../contracts/trading';
import type { AccountVenue } from '../../contracts/venues';
import type { ApiClient } from '../api/client';
import type { Clock } from '../clock';
import type { SessionStore } from '../stores/session';
import { formatAmount2, formatPrice } from './format';
import { TRADING_TEXT } from './messages';
import { limitPriceText } from './openOrders';
import { previewOrder } from './orders';
import { minutesText, protectionPreview } from './protectionView';

/** Milliseconds of quiet typing before the preview asks the server. */
export const PREVIEW_DEBOUNCE_MS = 250;

/** The line under the command prompt saying what Enter will do. */
export type PreviewLine =
  | { kind: 'none' }
  /** The grammar's message: Enter would print it. */
  | { kind: 'invalid'; text: string }
  /** What the line means, while the server is asked (or for a guest, who cannot ask). */
  | { kind: 'pending' | 'guest'; text: string }
  | { kind: 'ready'; text: string; preview: OrderPreview }
  /** The exchange would refuse it (min notional, margin…). */
  | { kind: 'refused'; text: string };

export interface OrderPreviewDeps {
  /** The line being typed at the prompt. */
  draft: ReadonlySignal<string>;
  /** The order a line stands for, or null when it is not an order line. */
  readOrder(line: string): OrderParse | null;
  session: SessionStore;
  trading: ApiClient;
  clock: Clock;
  /** The user's fat-finger cap: an order at or under it is previewed (and placed) within it. */
  fatFingerCap?: ReadonlySignal<number>;
  /** The account orders go to, for where the protection will rest; paper when absent. */
  accountVenue?: ReadonlySignal<AccountVenue>;
  debounceMs?: number;
}

export interface OrderPreviewModel {
  readonly line: ReadonlySignal<PreviewLine>;
  start(): () => void;
}

/** `SL 2% · TP 105,000.0000 · trail 1% · exit after 30m`: the protection as typed, before any price. */
export function protectionIntent(p: ProtectionInput, symbol: string): string {
  const level = (name: string, pct: number | undefined, price: number | undefined): string[] =>
    pct !== undefined
      ? [`${name} ${pct}%`]
      : price !== undefined
        ? [`${name} ${formatPrice(symbol, price)}`]
        : [];
  return [
    ...level('SL', p.stop_loss_pct, p.stop_loss_price),
    ...level('TP', p.take_profit_pct, p.take_profit_price),
    ...(p.trailing_pct === undefined ? [] : [`trail ${p.trailing_pct}%`]),
    ...(p.exit_after_min === undefined ? [] : [`exit after ${minutesText(p.exit_after_min)}`]),
  ].join(' · ');
}

/**
 * `LONG BTC/USDT 200 USDT (min. 100 USDT) · SL 2%`: what the line asks, before the server sizes it.
 */
const intent = (order: ParsedOrder): string => {
  const minimum = minimumOrder(exchangeSymbol(order.pair));
  const min = minimum === undefined ? '' : ` (${TRADING_TEXT.minimum(minimum)})`;
  const at =
    order.limit === undefined
      ? ''
      : ` @ ${limitPriceText(order.pair, order.limit.price)} ${order.limit.timeInForce}`;
  const asked = `${order.side.toUpperCase()} ${order.pair} ${formatAmount(order.amount)} USDT${at}${min}`;
  return protectionAsked(order.protection)
    ? `${asked} · ${protectionIntent(order.protection, order.pair)}`
    : asked;
};

/**
 * `LONG 0.002 BTC ≈ 201.40 USDT of BTC/USDT at 100,700.0000 · margin 20.14 · liq. 91,000.0000 · fee 0.10 ·
 * 10x · min. 100 USDT`, then the protection's legs (`protection`, already in words), then the sizing
 * note when the quantity is not worth exactly the amount typed.
 */
export function describePreview(p: OrderPreview, protection = ''): string {
  const liq =
    p.liquidationPrice === null ? 'closes the position' : `liq. ${formatPrice(p.symbol, p.liquidationPrice)}`;
  const limit = p.limit;
  const fill =
    limit === undefined
      ? TRADING_TEXT.wouldFill(p)
      : limit.rests
        ? `${TRADING_TEXT.wouldFill({ ...p, price: limit.price })} limit ${limit.time_in_force}: rests until the price reaches ${limitPriceText(p.symbol, limit.price)}`
        : `${TRADING_TEXT.wouldFill(p)} now (limit ${limitPriceText(p.symbol, limit.price)} ${limit.time_in_force} crosses the market)`;
  const feeWord = limit === undefined ? 'fee' : limit.rests ? 'maker fee' : 'taker fee';
  const line = [
    fill,
    `margin ${formatAmount2(p.margin)}`,
    liq,
    `${feeWord} ${formatAmount2(p.fee)}`,
    `${p.leverage}x`,
    TRADING_TEXT.minimum(p.minNotional),
    ...(protection === '' ? [] : [protection]),
  ].join(' · ');
  return p.note === null ? line : `${line}. ${p.note}`;
}

/**
 * The fat-finger cap an order is sized within: the cap when the amount is at or under it (the nearest
 * step may not go above it), nothing when the amount is above it (the user confirms that order).
 */
export function capFor(amount: number, cap: number | undefined): number | undefined {
  return cap !== undefined && amount <= cap ? cap : undefined;
}

/**
 * Follows the draft line: an order line is previewed by `POST /orders/preview` after a short pause,
 * newer drafts win over older answers, and a guest sees what can be known without asking.
 */
export function createOrderPreview(deps: OrderPreviewDeps): OrderPreviewModel {
  const line = signal<PreviewLine>({ kind: 'none' }, { name: 'orderPreview.line' });
  const debounceMs = deps.debounceMs ?? PREVIEW_DEBOUNCE_MS;
  let cancelTimer = (): void => undefined;
  let sequence = 0;

  const ask = async (order: ParsedOrder, mine: number): Promise<void> => {
    const answer = await previewOrder(deps.trading, {
      pair: order.pair,
      side: order.side,
      amount: order.amount,
      maxNotional: capFor(order.amount, deps.fatFingerCap?.peek()),
      limit: order.limit,
    });
    if (mine !== sequence) return;
    if (!answer.ok) {
      line.value = { kind: 'refused', text: `${intent(order)} · ${answer.message}` };
      return;
    }
    const p = answer.value;
    if (!protectionAsked(order.protection)) {
      line.value = { kind: 'ready', text: describePreview(p), preview: p };
      return;
    }
    const venue = deps.accountVenue?.peek() ?? 'paper';
    const legs = protectionPreview(order.protection, order.side, p.quantity, p.price, venue, order.pair);
    const text = describePreview(p, legs.text);
    // A stop or target on the wrong side of the price would fire at once: the server refuses it.
    line.value =
      legs.problem === null
        ? { kind: 'ready', text, preview: p }
        : { kind: 'refused', text: `${text} · ${legs.problem}` };
  };

  const follow = (draft: string, loggedIn: boolean): void => {
    cancelTimer();
    const mine = ++sequence;
    const parsed = draft.trim() === '' ? null : deps.readOrder(draft);
    if (parsed === null) {
      line.value = { kind: 'none' };
      return;
    }
    if (!parsed.ok) {
      line.value = { kind: 'invalid', text: parsed.message };
      return;
    }
    if (!loggedIn) {
      line.value = { kind: 'guest', text: `${intent(parsed.order)} · log in to trade` };
      return;
    }
    line.value = { kind: 'pending', text: `${intent(parsed.order)} …` };
    cancelTimer = deps.clock.setTimer(() => void ask(parsed.order, mine), debounceMs);
  };

  return {
    line,
    start() {
      const stop = effect(() => follow(deps.draft.value, deps.session.isLoggedIn.value));
      return () => {
        stop();
        cancelTimer();
        sequence += 1;
      };
    },
  };
}
