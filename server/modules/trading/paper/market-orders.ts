import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { ExchangeEvent, KeyClaim, MarketOrderRequest, OrderResult } from '../exchange';
import { ExchangeError } from '../exchange-error';
import { applyEvent, DEFAULT_LEVERAGE, type LedgerEvent, type PaperAccountState } from './account';
import type { AccountStore } from './account-store';
import type { PaperConditional } from './conditionals';
import { filtersFor } from './filters';
import type { LedgerRepo } from './ledger.repo';
import { liquidationPrice, ZERO } from './math';
import { planMarketOrder, planOrder, quoteSize, sizingOf, type FillConditions } from './orders';
import { accountUpdate, orderTradeUpdate, toOrderResult } from './paper-events';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

export interface MarketOrdersDeps {
  store: AccountStore;
  repo: LedgerRepo;
  now: () => number;
  /** The price, slippage and taker fee a market order on the symbol fills at now. */
  conditions: (symbol: string) => FillConditions;
  /** The mark as the account's update reports it. */
  mark: (symbol: string) => Decimal;
  emit: (account: string, event: ExchangeEvent) => void;
  /** Tells what a fill did to the account's conditional orders (its own, those of a position it closes). */
  announce: (
    account: string,
    before: PaperAccountState['conditionals'],
    after: PaperAccountState['conditionals'],
  ) => void;
  /** Tells that a conditional order fired: the fill booked is the market order it sent. */
  announceTriggered: (account: string, order: PaperConditional, actualOrderId: string, at: number) => void;
}

/**
 * The paper venue's market orders: placed from a USDT amount (with or without an Idempotency-Key),
 * previewed, and the reduce-only closes of a position, within the account's own turn; and the booking
 * of every paper fill, limit and conditional ones too, through the ledger with the events it tells.
 */
export class MarketOrders {
  constructor(private readonly d: MarketOrdersDeps) {}

  async place(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    return this.d.store.serial(account, async (retry) => {
      // The ledger's unique client id is the guard; look only when a write was refused.
      if (retry && (await this.d.repo.findFill(account, request.newClientOrderId))) {
        throw new ExchangeError(-4116, 'ClientOrderId is duplicated.');
      }
      const planned = this.plan((await this.d.store.load(account)).state, request);
      const result = await this.commitFill(account, planned.fill);
      return { ...result, sizing: sizingOf(planned) };
    });
  }

  /** The order and its Idempotency-Key in one ledger statement (see ExchangeAdapter). */
  async placeKeyed(account: string, request: MarketOrderRequest, key: KeyClaim): Promise<OrderResult | null> {
    return this.d.store.serial(account, async (retry) => {
      // A write refused by another process's row: a fill of this client id means the key was used.
      if (retry && (await this.d.repo.findFill(account, request.newClientOrderId))) return null;
      const planned = this.plan((await this.d.store.load(account)).state, request);
      const result = await this.commitFill(account, planned.fill, key);
      return result === null ? null : { ...result, sizing: sizingOf(planned) };
    });
  }

  private plan(state: PaperAccountState, request: MarketOrderRequest) {
    return planOrder(
      state,
      {
        orderId: randomUUID(),
        clientOrderId: request.newClientOrderId,
        symbol: request.symbol,
        side: request.side,
        size: quoteSize(request),
        reduceOnly: false,
      },
      this.d.conditions(request.symbol),
    );
  }

  /** What a market order would do now, without doing it. */
  async preview(account: string, request: Omit<MarketOrderRequest, 'newClientOrderId'>) {
    const { state } = await this.d.store.load(account);
    const planned = planOrder(
      state,
      {
        orderId: 'preview',
        clientOrderId: 'preview',
        symbol: request.symbol,
        side: request.side,
        size: quoteSize(request),
        reduceOnly: false,
      },
      this.d.conditions(request.symbol),
    );
    const { fill } = planned;
    const { state: after, effects } = applyEvent(state, fill);
    const position = after.positions.get(request.symbol);
    const filters = filtersFor(request.symbol, fill.price);
    return {
      fill,
      sizing: sizingOf(planned),
      marginAdded: Decimal.max(effects.marginDelta, ZERO),
      leverage: position?.leverage ?? state.leverage.get(request.symbol) ?? DEFAULT_LEVERAGE,
      liquidationPrice:
        position && filters
          ? liquidationPrice(position.size, position.entryPrice, position.isolatedWallet, filters)
          : null,
    };
  }

  async close(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    return this.d.store.serial(account, () => this.closeLocked(account, symbol, clientOrderId));
  }

  async reduce(
    account: string,
    request: { symbol: string; opened: 'BUY' | 'SELL'; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    return this.d.store.serial(account, async () => {
      const position = (await this.d.store.load(account)).state.positions.get(request.symbol);
      // Nothing left of what was opened: closed by hand, or turned the other way.
      if (!position || position.size.gt(0) !== (request.opened === 'BUY')) return null;
      const qty = Decimal.min(position.size.abs(), new Decimal(request.quantity));
      if (!qty.gt(0)) return null;
      return this.closeLocked(account, request.symbol, request.clientOrderId, qty);
    });
  }

  async closeAll(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    return this.d.store.serial(account, async () => {
      const { state } = await this.d.store.load(account);
      const results: OrderResult[] = [];
      for (const symbol of [...state.positions.keys()].sort()) {
        const result = await this.closeLocked(
          account,
          symbol,
          `${clientOrderIdPrefix}-${symbol}`.slice(0, 36),
        );
        if (result) results.push(result);
      }
      return results;
    });
  }

  /** Closes `qty` of the position (all of it by default), reduce-only. */
  private async closeLocked(
    account: string,
    symbol: string,
    clientOrderId: string,
    qty?: Decimal,
  ): Promise<OrderResult | null> {
    const { state } = await this.d.store.load(account);
    const position = state.positions.get(symbol);
    if (!position) return null;
    const fill = planMarketOrder(
      state,
      {
        orderId: randomUUID(),
        clientOrderId,
        symbol,
        side: position.size.gt(0) ? 'SELL' : 'BUY',
        size: { kind: 'quantity', qty: qty ?? position.size.abs() },
        reduceOnly: true,
      },
      this.d.conditions(symbol),
    );
    return this.commitFill(account, fill);
  }

  async commitFill(account: string, fill: Fill): Promise<OrderResult>;
  async commitFill(account: string, fill: Fill, key: KeyClaim): Promise<OrderResult | null>;
  async commitFill(account: string, fill: Fill, key?: KeyClaim): Promise<OrderResult | null> {
    // A fill may end conditional orders (its own, those of a position it closes): they need its time.
    const resting = (await this.d.store.load(account)).state.conditionals.resting.size > 0;
    const event = resting && fill.at === undefined ? { ...fill, at: this.d.now() } : fill;
    const committed = await this.d.store.commitKeyed(account, event, key);
    if (committed === null) {
      if (key === undefined) throw new Error('ledger row not written');
      return null;
    }
    const { effects, at, before, after } = committed;
    const fired = fill.algoId === undefined ? undefined : before.conditionals.resting.get(fill.algoId);
    if (fired) this.d.announceTriggered(account, fired, fill.orderId, event.at ?? at);
    const result = toOrderResult(fill, effects.realizedPnl.toString(), at);
    this.d.emit(account, orderTradeUpdate(fill, fill.price, effects.realizedPnl.toString(), at));
    this.d.emit(
      account,
      accountUpdate('ORDER', after, at, (s) => this.d.mark(s)),
    );
    this.d.announce(account, before.conditionals, after.conditionals);
    return result;
  }
}
