import Decimal from 'decimal.js';
import {
  EMPTY_BOOK,
  endAllIn,
  endIn,
  placeIn,
  POSITION_CLOSED_STATUS,
  positionClosedReason,
  trailIn,
  type ConditionalBook,
  type ConditionalEvent,
} from './conditionals';
import {
  EMPTY_LIMITS,
  endLimitIn,
  restIn,
  type LimitBook,
  type LimitEvent,
  type LimitTimeInForce,
} from './limits';
import { ZERO } from './math';

/**
 * A paper account's state and the ledger events that change it. The state is never edited in place by
 * callers: `applyEvent` folds one event into a new state, live and when rebuilding from the ledger, so
 * the two can never disagree.
 */

export interface PaperPosition {
  symbol: string;
  /** Signed quantity: positive long, negative short. */
  size: Decimal;
  entryPrice: Decimal;
  /** The position's isolated wallet (its margin). */
  isolatedWallet: Decimal;
  leverage: number;
}

export interface PaperAccountState {
  /** Wallet balance not allotted to any position. */
  cash: Decimal;
  positions: ReadonlyMap<string, PaperPosition>;
  /** Leverage chosen per symbol; DEFAULT_LEVERAGE otherwise. */
  leverage: ReadonlyMap<string, number>;
  /** Stops, targets and trailing stops: those resting, and the latest that ended. */
  conditionals: ConditionalBook;
  /** Limit orders: those resting (holding cash), and the latest that ended. */
  limits: LimitBook;
}

export const DEFAULT_LEVERAGE = 10;
export const STARTING_BALANCE = new Decimal(10_000);

/**
 * What the ledger stores, one row each. Amounts are decimal strings. `at` (ms) is the time of an event
 * that changes conditional orders (their updateTime); a fill or liquidation carries it only when the
 * account had some resting.
 */
export type LedgerEvent =
  | { type: 'deposit'; amount: string; reason: 'initial' | 'reset'; at?: number }
  | { type: 'leverage'; symbol: string; leverage: number }
  | {
      type: 'fill';
      orderId: string;
      clientOrderId: string;
      reduceOnly: boolean;
      symbol: string;
      side: 'BUY' | 'SELL';
      qty: string;
      price: string;
      fee: string;
      /** The conditional order this fill is the market order of (it fired). */
      algoId?: string;
      /**
       * A limit order's fill: its price and time in force; `rested` when it filled off the book (it was
       * the resting order of the same orderId, whose reserved cash it gives back).
       */
      limit?: { price: string; timeInForce: LimitTimeInForce; rested: boolean };
      at?: number;
    }
  | { type: 'liquidation'; symbol: string; price: string; at?: number }
  | ConditionalEvent
  | LimitEvent;

/** The balance changes an event caused, stored beside it in the ledger. */
export interface EventEffects {
  cashDelta: Decimal;
  realizedPnl: Decimal;
  fee: Decimal;
  /** Change in the total of isolated wallets. */
  marginDelta: Decimal;
}

export function emptyAccount(): PaperAccountState {
  return {
    cash: ZERO,
    positions: new Map(),
    leverage: new Map(),
    conditionals: EMPTY_BOOK,
    limits: EMPTY_LIMITS,
  };
}

export function leverageOf(state: PaperAccountState, symbol: string): number {
  return state.leverage.get(symbol) ?? DEFAULT_LEVERAGE;
}

const none = (): EventEffects => ({ cashDelta: ZERO, realizedPnl: ZERO, fee: ZERO, marginDelta: ZERO });

/** Folds one ledger event into the account. */
export function applyEvent(
  state: PaperAccountState,
  event: LedgerEvent,
): { state: PaperAccountState; effects: EventEffects } {
  switch (event.type) {
    case 'deposit': {
      const amount = new Decimal(event.amount);
      if (event.reason === 'reset') {
        const lockedMargin = [...state.positions.values()].reduce((s, p) => s.plus(p.isolatedWallet), ZERO);
        const conditionals = endAllIn(state.conditionals, null, 'CANCELED', RESET_REASON, event.at);
        let limits = state.limits;
        for (const id of state.limits.resting.keys()) {
          limits = endLimitIn(limits, id, 'CANCELED', RESET_REASON, event.at).book;
        }
        return {
          state: { cash: amount, positions: new Map(), leverage: new Map(), conditionals, limits },
          effects: { ...none(), cashDelta: amount.minus(state.cash), marginDelta: lockedMargin.neg() },
        };
      }
      return {
        state: { ...state, cash: state.cash.plus(amount) },
        effects: { ...none(), cashDelta: amount },
      };
    }
    case 'leverage': {
      const leverage = new Map(state.leverage);
      leverage.set(event.symbol, event.leverage);
      // An open position takes the new leverage for what is added to it; its margin so far stays.
      const open = state.positions.get(event.symbol);
      const positions = open
        ? new Map(state.positions).set(event.symbol, { ...open, leverage: event.leverage })
        : state.positions;
      return { state: { ...state, leverage, positions }, effects: none() };
    }
    case 'liquidation': {
      const position = state.positions.get(event.symbol);
      if (!position) return { state, effects: none() };
      const positions = new Map(state.positions);
      positions.delete(event.symbol);
      // The whole isolated wallet is lost: that is what isolated margin means.
      return {
        state: { ...state, positions, conditionals: closedUnder(state.conditionals, event.symbol, event.at) },
        effects: {
          ...none(),
          realizedPnl: position.isolatedWallet.neg(),
          marginDelta: position.isolatedWallet.neg(),
        },
      };
    }
    case 'fill': {
      if (event.limit?.rested === true) return applyRestedFill(state, event);
      const filled = applyFill(state, event);
      if (state.conditionals.resting.size === 0) return filled;
      let conditionals = state.conditionals;
      if (event.algoId !== undefined) {
        conditionals = endIn(
          conditionals,
          event.algoId,
          { status: 'FINISHED', reason: null, actualOrderId: event.orderId },
          event.at,
        );
      }
      if (state.positions.has(event.symbol) && !filled.state.positions.has(event.symbol)) {
        conditionals = closedUnder(conditionals, event.symbol, event.at);
      }
      return { state: { ...filled.state, conditionals }, effects: filled.effects };
    }
    case 'limit': {
      const reserved = new Decimal(event.order.reserved);
      return {
        state: { ...state, cash: state.cash.minus(reserved), limits: restIn(state.limits, event.order) },
        effects: { ...none(), cashDelta: reserved.neg() },
      };
    }
    case 'limit-end': {
      const { book, released } = endLimitIn(
        state.limits,
        event.orderId,
        event.status,
        event.reason,
        event.at,
      );
      return {
        state: { ...state, cash: state.cash.plus(released), limits: book },
        effects: { ...none(), cashDelta: released },
      };
    }
    case 'conditional':
      return { state: withBook(state, placeIn(state.conditionals, event.order, event.at)), effects: none() };
    case 'conditional-trail':
      return {
        state: withBook(state, trailIn(state.conditionals, event.algoId, event.extreme, event.at)),
        effects: none(),
      };
    case 'conditional-end':
      return {
        state: withBook(
          state,
          endIn(
            state.conditionals,
            event.algoId,
            { status: event.status, reason: event.reason, actualOrderId: null },
            event.at,
          ),
        ),
        effects: none(),
      };
  }
}

const RESET_REASON = 'The paper account was reset.';

/** The state with a resting limit order taken off the book (FILLED) and its reserved cash given back. */
export function releaseLimit(state: PaperAccountState, orderId: string, at?: number) {
  const { book, released } = endLimitIn(state.limits, orderId, 'FILLED', null, at);
  return { state: { ...state, cash: state.cash.plus(released), limits: book }, released };
}

/** A resting limit order's fill: its cash given back, then filled as any fill is. */
function applyRestedFill(
  state: PaperAccountState,
  event: Extract<LedgerEvent, { type: 'fill' }>,
): { state: PaperAccountState; effects: EventEffects } {
  const { state: released, released: amount } = releaseLimit(state, event.orderId, event.at);
  const { limit: _limit, ...plain } = event;
  const filled = applyEvent(released, plain);
  return {
    state: filled.state,
    effects: { ...filled.effects, cashDelta: filled.effects.cashDelta.plus(amount) },
  };
}

const withBook = (state: PaperAccountState, conditionals: ConditionalBook): PaperAccountState =>
  conditionals === state.conditionals ? state : { ...state, conditionals };

/**
 * A position went to zero (closed by hand, by a fired leg, liquidated): the orders resting on its symbol
 * have nothing left to reduce and end, as Binance ends them (one-cancels-the-other).
 */
function closedUnder(book: ConditionalBook, symbol: string, at: number | undefined): ConditionalBook {
  return endAllIn(book, symbol, POSITION_CLOSED_STATUS, positionClosedReason(symbol), at);
}

function applyFill(
  state: PaperAccountState,
  fill: Extract<LedgerEvent, { type: 'fill' }>,
): { state: PaperAccountState; effects: EventEffects } {
  const qty = new Decimal(fill.qty);
  const price = new Decimal(fill.price);
  const fee = new Decimal(fill.fee);
  const direction = fill.side === 'BUY' ? 1 : -1;
  const positions = new Map(state.positions);
  const existing = positions.get(fill.symbol);
  let cash = state.cash.minus(fee);
  let realizedPnl = ZERO;
  let marginDelta = ZERO;
  let remaining = qty;
  let position = existing;

  // Reduce (or close) an opposite position first.
  if (position && position.size.gt(0) !== direction > 0 && !position.size.isZero()) {
    const held = position.size.abs();
    const closeQty = Decimal.min(held, remaining);
    const pnl = closeQty.mul(price.minus(position.entryPrice)).mul(position.size.gt(0) ? 1 : -1);
    const released = position.isolatedWallet.mul(closeQty).div(held);
    cash = cash.plus(released).plus(pnl);
    realizedPnl = realizedPnl.plus(pnl);
    marginDelta = marginDelta.minus(released);
    remaining = remaining.minus(closeQty);
    const size = position.size.minus(closeQty.mul(position.size.gt(0) ? 1 : -1));
    position = size.isZero()
      ? undefined
      : { ...position, size, isolatedWallet: position.isolatedWallet.minus(released) };
  }

  // Open or add with what is left.
  if (remaining.gt(0)) {
    const leverage = position?.leverage ?? leverageOf(state, fill.symbol);
    const margin = remaining.mul(price).div(leverage);
    cash = cash.minus(margin);
    marginDelta = marginDelta.plus(margin);
    if (position) {
      const held = position.size.abs();
      const entryPrice = held.mul(position.entryPrice).plus(remaining.mul(price)).div(held.plus(remaining));
      position = {
        ...position,
        size: position.size.plus(remaining.mul(direction)),
        entryPrice,
        isolatedWallet: position.isolatedWallet.plus(margin),
      };
    } else {
      position = {
        symbol: fill.symbol,
        size: remaining.mul(direction),
        entryPrice: price,
        isolatedWallet: margin,
        leverage,
      };
    }
  }

  if (position) positions.set(fill.symbol, position);
  else positions.delete(fill.symbol);
  return {
    state: { ...state, cash, positions },
    effects: { cashDelta: cash.minus(state.cash), realizedPnl, fee, marginDelta },
  };
}

/** Replays a ledger from an empty account. */
export function rebuild(events: readonly LedgerEvent[]): PaperAccountState {
  return events.reduce((state, event) => applyEvent(state, event).state, emptyAccount());
}
