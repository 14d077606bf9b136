import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type {
  ConditionalOrder,
  ConditionalOrderRequest,
  ConditionalUpdateEvent,
  ExchangeEvent,
} from '../exchange';
import { ExchangeError, exchangeErrors } from '../exchange-error';
import type { LedgerEvent, PaperAccountState } from './account';
import type { AccountStore } from './account-store';
import { checkNotImmediate, checkUnique, readConditionalRequest } from './conditional-request';
import {
  statusChanges,
  stepAt,
  toConditionalOrder,
  type ConditionalBook,
  type PaperConditional,
} from './conditionals';
import { filtersFor } from './filters';
import type { MarketOrderInput } from './orders';
import { SymbolIndex } from './symbol-index';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

export interface ConditionalOrdersDeps {
  store: AccountStore;
  /** The mark conditional orders trigger on (workingType MARK_PRICE). */
  markPrice: (symbol: string) => number | undefined;
  now: () => number;
  /** Plans the reduce-only market order a fired order sends, as every paper fill is planned. */
  planFill: (state: PaperAccountState, input: MarketOrderInput) => Fill;
  /** Books a fired order's fill and tells (ALGO_UPDATE TRIGGERED, the fill's events, then FINISHED). */
  commitFill: (account: string, fill: Fill) => Promise<unknown>;
  emit: (account: string, event: ExchangeEvent) => void;
}

/**
 * The paper venue's conditional orders, as Binance's algo service runs them: placed, looked up, cancelled,
 * and on each move of the mark fired (a reduce-only market order) or, for a trailing stop, moved to the
 * new best mark, within the account's own turn and through its ledger.
 */
export class ConditionalOrders {
  private readonly index = new SymbolIndex<ConditionalBook>();

  constructor(private readonly d: ConditionalOrdersDeps) {}

  /** Keeps the symbol → accounts index in step with the account's state (every load and commit). */
  stateChanged(account: string, state: PaperAccountState): void {
    this.index.update(account, state.conditionals);
  }

  async place(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    return this.d.store.serial(account, async () => {
      const mark = this.d.markPrice(request.symbol);
      const shape = readConditionalRequest(request, filtersFor(request.symbol, mark ?? 1));
      const { state } = await this.d.store.load(account);
      checkUnique(state.conditionals.resting.values(), shape.clientAlgoId);
      if (mark === undefined || !(mark > 0)) throw exchangeErrors.noPrice();
      checkNotImmediate(shape, new Decimal(mark));
      const armedAtOnce = shape.type === 'TRAILING_STOP_MARKET' && shape.activatePrice === null;
      const algoId = randomUUID();
      const order = { ...shape, algoId, extreme: armedAtOnce ? new Decimal(mark).toString() : null };
      const committed = await this.commit(account, { type: 'conditional', order, at: this.d.now() });
      return toConditionalOrder(committed.after.conditionals.resting.get(algoId) ?? placedMissing());
    });
  }

  async query(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    const find = (book: ConditionalBook) =>
      restingBy(book, symbol, clientAlgoId) ?? endedBy(book, symbol, clientAlgoId);
    let found = find((await this.d.store.load(account)).state.conditionals);
    if (found === undefined) {
      // Not in this process's copy: another process may have placed it. The ledger says.
      this.d.store.invalidate(account);
      found = find((await this.d.store.load(account)).state.conditionals);
    }
    return found ? toConditionalOrder(found) : null;
  }

  async cancel(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.d.store.serial(account, async () => {
      let order = restingBy((await this.d.store.load(account)).state.conditionals, symbol, clientAlgoId);
      if (!order) {
        // Placed by another process since this copy was loaded: read the ledger before saying none.
        this.d.store.invalidate(account);
        order = restingBy((await this.d.store.load(account)).state.conditionals, symbol, clientAlgoId);
      }
      if (!order) return null;
      const { algoId } = order;
      const event = { type: 'conditional-end', algoId, symbol, status: 'CANCELED', reason: null } as const;
      const committed = await this.commit(account, { ...event, at: this.d.now() });
      return toConditionalOrder(endedById(committed.after.conditionals, algoId) ?? order);
    });
  }

  /** The resting orders as the ledger has them now (another process may have placed or ended some). */
  async open(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    this.d.store.invalidate(account);
    const { conditionals } = (await this.d.store.load(account)).state;
    return [...conditionals.resting.values()]
      .filter((o) => symbol === undefined || o.symbol === symbol)
      .map(toConditionalOrder);
  }

  /**
   * On a move of the marks: every account holding conditional orders on a moved symbol (an index in
   * memory, so nothing is done when none does) is looked at, and those whose orders the mark fires or
   * trails are worked on in their own turn, looked at again there.
   */
  check(moved: ReadonlySet<string>): Promise<void> {
    const accounts = this.index.accountsOn(moved);
    if (accounts.size === 0) return Promise.resolve();
    const checks = [...accounts].map(async (account) => {
      const { state } = await this.d.store.load(account);
      if (!this.anyStep(state, moved)) return;
      await this.d.store.serial(account, () => this.stepLocked(account, moved));
    });
    return Promise.allSettled(checks).then(() => undefined);
  }

  /** ALGO_UPDATE for each order a commit placed or ended, in the order of the book. */
  announce(account: string, before: ConditionalBook, after: ConditionalBook): void {
    for (const order of statusChanges(before, after)) this.d.emit(account, algoUpdate(order));
  }

  /** ALGO_UPDATE TRIGGERED: the order fired and `actualOrderId` is the market order it sent. */
  announceTriggered(account: string, order: PaperConditional, actualOrderId: string, at: number): void {
    this.d.emit(account, algoUpdate({ ...order, status: 'TRIGGERED', actualOrderId, updateTime: at }));
  }

  private anyStep(state: PaperAccountState, moved: ReadonlySet<string>): boolean {
    for (const order of state.conditionals.resting.values()) {
      if (!moved.has(order.symbol)) continue;
      const mark = this.d.markPrice(order.symbol);
      if (mark !== undefined && stepAt(order, new Decimal(mark)) !== null) return true;
    }
    return false;
  }

  /** Within the account's turn: each order again on the latest state (a fill may have ended the others). */
  private async stepLocked(account: string, moved: ReadonlySet<string>): Promise<void> {
    const ids = [...(await this.d.store.load(account)).state.conditionals.resting.keys()];
    for (const algoId of ids) {
      const { state } = await this.d.store.load(account);
      const order = state.conditionals.resting.get(algoId);
      if (!order || !moved.has(order.symbol)) continue;
      const mark = this.d.markPrice(order.symbol);
      if (mark === undefined) continue;
      const step = stepAt(order, new Decimal(mark));
      if (step === null) continue;
      const at = this.d.now();
      if (step.kind === 'trail') {
        const extreme = step.extreme.toString();
        await this.commit(account, { type: 'conditional-trail', algoId, symbol: order.symbol, extreme, at });
      } else {
        await this.fire(account, state, order, at);
      }
    }
  }

  /**
   * Sends the order's reduce-only market order: the whole position for closePosition, at most what is
   * open for a quantity. With nothing it may reduce, the order is REJECTED as Binance's matching engine
   * refuses a reduce-only order then.
   */
  private async fire(account: string, state: PaperAccountState, order: PaperConditional, at: number) {
    const position = state.positions.get(order.symbol);
    const held = position?.size.abs() ?? new Decimal(0);
    const qty = order.closePosition ? held : Decimal.min(held, new Decimal(order.quantity ?? 0));
    let fill: Fill;
    try {
      fill = this.d.planFill(state, {
        orderId: randomUUID(),
        clientOrderId: actualClientOrderId(order),
        symbol: order.symbol,
        side: order.side,
        size: { kind: 'quantity', qty },
        reduceOnly: true,
      });
    } catch (err) {
      // No price to fill at right now: it fires on a later move.
      if (!(err instanceof ExchangeError) || err.code === exchangeErrors.noPrice().code) return;
      const { algoId, symbol } = order;
      await this.commit(account, {
        type: 'conditional-end',
        algoId,
        symbol,
        status: 'REJECTED',
        reason: err.msg,
        at,
      });
      return;
    }
    await this.d.commitFill(account, { ...fill, algoId: order.algoId, at });
  }

  private async commit(account: string, event: LedgerEvent) {
    const committed = await this.d.store.commit(account, event);
    this.announce(account, committed.before.conditionals, committed.after.conditionals);
    return committed;
  }
}

/** `sl-`, `tp-` or `ts-` and the algoId's hex: one market order per conditional order, ever. */
function actualClientOrderId(order: PaperConditional): string {
  const prefix = { STOP_MARKET: 'sl', TAKE_PROFIT_MARKET: 'tp', TRAILING_STOP_MARKET: 'ts' }[order.type];
  return `${prefix}-${order.algoId.replaceAll('-', '')}`.slice(0, 36);
}

function algoUpdate(order: PaperConditional): ConditionalUpdateEvent {
  return {
    e: 'ALGO_UPDATE',
    E: order.updateTime,
    T: order.updateTime,
    order: toConditionalOrder(order),
    reason: order.reason,
  };
}

const restingBy = (book: ConditionalBook, symbol: string, clientAlgoId: string) =>
  [...book.resting.values()].find((o) => o.symbol === symbol && o.clientAlgoId === clientAlgoId);

/** The latest ended order by that id (a client id may be used again once its order ended). */
const endedBy = (book: ConditionalBook, symbol: string, clientAlgoId: string) =>
  book.ended.findLast((o) => o.symbol === symbol && o.clientAlgoId === clientAlgoId);

const endedById = (book: ConditionalBook, algoId: string) => book.ended.findLast((o) => o.algoId === algoId);

function placedMissing(): never {
  throw new Error('conditional order not in the state its placement made');
}
