import { effect, signal, type ReadonlySignal } from '@preact/signals-core';
import type { OrderParse, ParsedOrder } from '../../commands/grammar/order';
import { formatAmount } from '../../commands/grammar/order';
import { minimumOrder } from '../../contracts/sizing';
import { exchangeSymbol, type OrderPreview } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import type { Clock } from '../clock';
import type { SessionStore } from '../stores/session';
import { formatAmount2, formatTradePrice } from './format';
import { TRADING_TEXT } from './messages';
import { previewOrder } from './orders';

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
  debounceMs?: number;
}

export interface OrderPreviewModel {
  readonly line: ReadonlySignal<PreviewLine>;
  start(): () => void;
}

/** `LONG BTC/USDT 200 USDT (min. 100 USDT)`: what the line asks, before the server sizes it. */
const intent = (order: ParsedOrder): string => {
  const minimum = minimumOrder(exchangeSymbol(order.pair));
  const min = minimum === undefined ? '' : ` (${TRADING_TEXT.minimum(minimum)})`;
  return `${order.side.toUpperCase()} ${order.pair} ${formatAmount(order.amount)} USDT${min}`;
};

/**
 * `LONG 0.002 BTC ≈ 201.40 USDT of BTC/USDT at 100,700.0000 · margin 20.14 · liq. 91,000.0000 · fee 0.10 ·
 * 10x · min. 100 USDT`, then the sizing note when the quantity is not worth exactly the amount typed.
 */
export function describePreview(p: OrderPreview): string {
  const liq =
    p.liquidationPrice === null ? 'closes the position' : `liq. ${formatTradePrice(p.liquidationPrice)}`;
  const line = [
    TRADING_TEXT.wouldFill(p),
    `margin ${formatAmount2(p.margin)}`,
    liq,
    `fee ${formatAmount2(p.fee)}`,
    `${p.leverage}x`,
    TRADING_TEXT.minimum(p.minNotional),
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
    });
    if (mine !== sequence) return;
    line.value = answer.ok
      ? { kind: 'ready', text: describePreview(answer.value), preview: answer.value }
      : { kind: 'refused', text: `${intent(order)} · ${answer.message}` };
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
