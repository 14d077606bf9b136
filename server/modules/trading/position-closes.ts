import { randomUUID } from 'node:crypto';
import {
  pairOf,
  type CloseAllResponse,
  type CloseResponse,
  type OrderResponse,
} from '../../../src/contracts/trading';
import { AppError, appError } from '../../plugins/errors';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { OrderResult } from './exchange';
import { CloseAllIncomplete, OrderOutcomeUnknown } from './exchange-error';
import { closeUnknown, noFill, refusal, toResponse } from './order-outcome';
import { supportedSymbol } from './order-request';
import type { OrderSender } from './order-send';
import type { ProtectionService } from './protection/protection.service';
import { closeShareOn, shareClientId } from './position-share';
import { closedAllText, closedText, type TradeOrigin } from './trade-log';

/** A close-all's closes once looked up: the fills, the closes refused (in words), those still unknown. */
interface SettledCloses {
  results: readonly OrderResult[];
  notClosed: string[];
  unknown: { symbol: string; reason: string }[];
}

/** Whether the venue told a fill's fee and realised PnL. */
const feesKnown = (r: OrderResult): boolean => r.commission !== null && r.realizedPnl !== null;

/**
 * Orders that close what is open: one position, a share of it, every position of the account, and the
 * reduce-only closes a rule's exit sends for what its decision opened. A close without a clear answer is
 * looked up by its client id, as an order is; a closed position's legs are dropped.
 */
export class PositionCloses {
  constructor(
    private readonly accounts: AccountResolver,
    /** Claims, sends, looks up and records each order. */
    private readonly sender: OrderSender,
    /** Makes sure a mark exists for the symbol (asks the market once when none was seen yet). */
    private readonly ensureMark: (symbol: string) => Promise<void>,
    /** Each position's stop, target, trailing stop and time exit (none: orders carry no protection). */
    private readonly protection: () => ProtectionService | null,
  ) {}

  /**
   * Reduce-only, on `account`: closes up to `quantity` of the position on `symbol` that an order of
   * `opened` built, never more and never the other way (an exit closes what its decision opened). Null
   * when nothing of it is left (closed by hand).
   */
  async reducePosition(
    userId: string,
    account: string,
    request: { symbol: string; opened: 'long' | 'short'; quantity: number; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | null> {
    const symbol = supportedSymbol(request.symbol);
    await this.ensureMark(symbol);
    const where = await this.accounts.byName(userId, account);
    const order = {
      symbol,
      opened: request.opened === 'long' ? 'BUY' : 'SELL',
      quantity: String(request.quantity),
      clientOrderId: request.clientOrderId,
    } as const;
    try {
      return await this.sender.sendReduce(userId, where, order, origin);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  /**
   * A reduce sent earlier under `clientOrderId` on `account`, looked up on the venue before any resend:
   * its fill (recorded in the trade history, once), 'unfilled' when the venue ended it with nothing
   * executed (that client id is spent), or null when the venue has no such order. Throws when the venue
   * does not answer, or while the order is still working.
   */
  async findReduce(
    userId: string,
    account: string,
    request: { symbol: string; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | 'unfilled' | null> {
    const symbol = supportedSymbol(request.symbol);
    const where = await this.accounts.byName(userId, account);
    try {
      const found = await where.adapter.queryOrder(where.account, request.clientOrderId, symbol);
      if (found === null) return null;
      const final = await this.sender.untilFinal(where, found, symbol);
      if (!(Number(final.executedQty) > 0)) return 'unfilled';
      return await this.sender.conclude(userId, undefined, where, final, origin);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  /**
   * Closes one position on the chosen account; the answer names the closing fill (PnL, fee, venue). A
   * close without a clear answer is looked up by its client id, as an order is: the fill, the venue's
   * refusal, or 503 while it is still not known.
   */
  async closePosition(userId: string, pair: string): Promise<CloseResponse> {
    const symbol = supportedSymbol(pair);
    await this.ensureMark(symbol);
    const where = await this.accounts.resolve(userId);
    const clientOrderId = `sc-close-${randomUUID()}`.slice(0, 36);
    try {
      let result: OrderResult | null;
      try {
        result = await where.adapter.closePosition(where.account, symbol, clientOrderId);
      } catch (err) {
        if (!(err instanceof OrderOutcomeUnknown)) throw err;
        const found = await this.sender.lookUp(where, clientOrderId, symbol);
        if (found === null) throw closeUnknown([pairOf(symbol)], err.reason, '', where.venue);
        result = found;
      }
      if (!result) throw appError('NOT_FOUND', `No open ${pairOf(symbol)} position.`);
      const final = await this.sender.withLateFees(
        where,
        await this.sender.untilFinal(where, result, symbol),
      );
      if (!(Number(final.executedQty) > 0)) throw noFill(final, where.venue);
      const fill = toResponse(final, where);
      await this.sender.record(userId, where, fill, { source: 'manual' }, final);
      // Closed by hand: its legs must not stay behind to open a new position.
      void this.protection()?.positionClosed(userId, where.name, symbol);
      const [told = fill] = await this.sender.withPositionChange(where, [fill]);
      return { message: closedText(told, feesKnown(final)), fill: told };
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * `close btc 50%`: a reduce-only market order of `share` of the position, down to the step; refused
   * when that rounds below the smallest order. Under an Idempotency-Key a retry answers the first fill.
   */
  async closeShare(userId: string, pair: string, share: number, key?: string): Promise<CloseResponse> {
    const symbol = supportedSymbol(pair);
    await this.ensureMark(symbol);
    const where = await this.accounts.resolve(userId);
    const origin: TradeOrigin = { source: 'manual' };
    const deps = {
      sendReduce: (w: ResolvedAccount, order: Parameters<OrderSender['sendReduce']>[2]) =>
        this.sender.sendReduce(userId, w, order, origin),
      conclude: (w: ResolvedAccount, result: OrderResult) =>
        this.sender.conclude(userId, undefined, w, result, origin),
      origin,
    };
    try {
      return await closeShareOn(deps, where, {
        symbol,
        share,
        clientOrderId: shareClientId(userId, key),
        retry: key !== undefined,
      });
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * Closes every position on the chosen account; one fill per position closed. A close without a clear
   * answer is looked up by its client id; one still unknown after that makes the answer a 503 that names
   * it (the fills found are recorded all the same). A refused close is named beside the fills.
   */
  async closeAll(userId: string): Promise<CloseAllResponse> {
    const where = await this.accounts.resolve(userId);
    try {
      const open = await where.adapter.positionRisk(where.account);
      await Promise.all(open.map((p) => this.ensureMark(p.symbol)));
      let settled: SettledCloses;
      try {
        const results = await where.adapter.closeAllPositions(
          where.account,
          `sc-all-${randomUUID().slice(0, 8)}`,
        );
        settled = { results, notClosed: [], unknown: [] };
      } catch (err) {
        if (!(err instanceof CloseAllIncomplete)) throw err;
        settled = await this.settleCloses(where, err);
      }
      const { results, notClosed, unknown } = settled;
      const fills = results.map((r) => toResponse(r, where));
      for (const [i, fill] of fills.entries()) {
        await this.sender.record(userId, where, fill, { source: 'manual' }, results[i]);
      }
      for (const r of results) void this.protection()?.positionClosed(userId, where.name, r.symbol);
      const told = await this.sender.withPositionChange(where, fills);
      const closed = told.length === 0 ? [] : [closedAllText(told, results.every(feesKnown))];
      if (unknown.length > 0) {
        throw closeUnknown(
          unknown.map((u) => pairOf(u.symbol)),
          [...new Set(unknown.map((u) => u.reason))].join('; '),
          [...closed, ...notClosed].join(' '),
          where.venue,
        );
      }
      if (told.length === 0 && notClosed.length === 0) {
        return { message: 'There are no open positions to close.', fills: [] };
      }
      if (told.length === 0) throw appError('BAD_REQUEST', notClosed.join(' '));
      return { message: [...closed, ...notClosed].join(' '), fills: told };
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * What the closes of a close-all that did not simply fill came to: each unknown one looked up (a fill,
   * an end without a fill, or still unknown), each refused one in the venue's words.
   */
  private async settleCloses(where: ResolvedAccount, incomplete: CloseAllIncomplete): Promise<SettledCloses> {
    const results = [...incomplete.fills];
    const notClosed: string[] = [];
    const unknown: { symbol: string; reason: string }[] = [];
    for (const u of incomplete.unknown) {
      let final: OrderResult | null = null;
      try {
        const found = await this.sender.lookUp(where, u.clientOrderId, u.symbol);
        if (found !== null) final = await this.sender.untilFinal(where, found, u.symbol);
      } catch {
        // Still working after the settle time: as unknown as not found.
        final = null;
      }
      if (final === null) unknown.push({ symbol: u.symbol, reason: u.reason });
      else if (Number(final.executedQty) > 0) results.push(await this.sender.withLateFees(where, final));
      else notClosed.push(`${pairOf(u.symbol)} was not closed: ${noFill(final, where.venue).msg}`);
    }
    for (const r of incomplete.refused) {
      const answer = refusal(r.error);
      const detail = answer instanceof AppError ? answer.detail : 'the close failed; nothing was placed.';
      notClosed.push(`${pairOf(r.symbol)} was not closed: ${detail}`);
    }
    return { results, notClosed, unknown };
  }
}
