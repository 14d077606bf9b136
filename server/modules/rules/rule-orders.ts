import type { OrderRequest, OrderResponse, OrderVenue } from '../../../src/contracts/trading';
import { AppError } from '../../plugins/errors';
import type { Clock } from '../market/clock';
import type { DecisionsRepo } from './decisions.repo';
import type { DecisionRow, DecisionUpdate } from './rules.types';

export interface EngineLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What a rule's orders need of the trading service. */
export interface RuleTrading {
  /** Places the order on `account` ('paper' or a key id), whatever the user trades on by hand. */
  placeOrder(
    userId: string,
    request: OrderRequest,
    idempotencyKey: string,
    opts: { account: string; origin?: { source: 'rule'; ruleId: string; ruleName: string } },
  ): Promise<OrderResponse>;
  findOrder(userId: string, idempotencyKey: string): Promise<OrderResponse | null>;
  /** How many positions rules opened are open on `account` (the trader's own are not counted). */
  openPositions(userId: string, account: string): Promise<number>;
  /** The account's mode and key hint; throws when the key is gone. */
  venueOf(userId: string, account: string): Promise<OrderVenue>;
  /** What the paper exchange would fill now (a decision on a key's shadow twin), or why it would refuse. */
  paperTwin(
    userId: string,
    request: OrderRequest,
  ): Promise<{ price: number; quantity: number; fee: number } | { refused: string }>;
}

/** Why a decision whose rule's key is gone was skipped. */
const ACCOUNT_MISSING =
  "The rule's exchange key is no longer saved; move the rule to paper or to another key.";

/** How long after an unknown outcome the engine looks the order up again before settling the decision. */
const UNKNOWN_RECHECK_MS = 6_000;

/** A decision still pending after this long was interrupted (an order takes milliseconds). */
const INTERRUPTED_MS = 60_000;

/** The idempotency key of the order a rule places for a signal: one order per (rule, signal), ever. */
export const ruleOrderKey = (ruleId: string, signalId: string) => `rule-${ruleId}-${signalId}`;

/** What a decision records when its order was placed: the fill's figures and the times of the receipt. */
/** Whether the order's stop or target rests on the exchange (placed, or being confirmed). */
function legsRest(order: OrderResponse): boolean {
  const p = order.protection;
  if (p === null) return false;
  return [p.stop_loss, p.take_profit].some(
    (leg) => leg !== null && leg.on === 'exchange' && leg.state !== 'refused',
  );
}

/** The slippage guard's estimate and the fill's actual slippage, when the order had a cap. */
function slippageColumns(receipt: OrderResponse['slippage']) {
  if (receipt === null) return {};
  return {
    slippageEstimatedPct: String(receipt.estimated_pct),
    slippageActualPct: receipt.actual_pct === null ? null : String(receipt.actual_pct),
  };
}

export function firedUpdate(
  order: Pick<OrderResponse, 'id' | 'price' | 'quantity' | 'fee' | 'note' | 'timing'> &
    Partial<Pick<OrderResponse, 'slippage'>>,
  latencyMs: number | null,
  sentAt: number | null,
  now: number,
): DecisionUpdate {
  return {
    outcome: 'fired',
    orderId: order.id,
    price: String(order.price),
    quantity: String(order.quantity),
    notional: String(Math.round(order.quantity * order.price * 100) / 100),
    fee: String(order.fee),
    detail: order.note,
    latencyMs,
    ...(sentAt === null ? {} : { sentAt: new Date(sentAt) }),
    ackedAt: new Date(now),
    venueMs: order.timing?.venue_ms ?? null,
    venueOwnMs: order.timing?.venue_own_ms ?? null,
    ...slippageColumns(order.slippage ?? null),
    // Every position a rule opens is its own to unwind (exits, flatten, retractions): it stays open
    // until one of those closes it or finds it closed by hand.
    exitState: 'open',
  };
}

/** The counts the orders keep (the engine's `stats` carries them). */
export interface OrderStats {
  fired: number;
  skipped: number;
}

export interface RuleOrdersDeps {
  repo: DecisionsRepo;
  trading: RuleTrading;
  clock: Clock;
  log: EngineLog;
  /** How long after an unknown outcome its order is looked up again (default 6 s). */
  unknownRecheckMs?: number;
  stats: OrderStats;
  /** Told of every decision that ended fired or skipped, with its row as recorded. */
  decided?: (event: 'fired' | 'skipped', decision: DecisionRow) => void;
  /**
   * A decision not sent after all: its story was retracted (or its decision settled elsewhere) while it
   * waited its turn. Whoever settled it told of it; the one counting it as pending hears it is not.
   */
  unsent?: (decision: DecisionRow) => void;
  /**
   * A fill landed on a decision whose story was retracted while its order was on its way (or of unknown
   * outcome): it is unwound at once, like the positions open when the retraction came.
   */
  retracted?: (decision: DecisionRow) => Promise<void>;
}

/**
 * A decided match's way to an outcome in the ledger: its order is sent under the rule-and-signal key
 * (with a paper twin beside a live one), an unknown outcome is looked up again later, and the decision
 * ends fired or skipped. Decisions a crash left pending are settled the same way.
 */
export class RuleOrders {
  /** Look-ups scheduled for orders whose outcome was unknown. */
  private readonly unknown = new Set<() => void>();

  constructor(private readonly d: RuleOrdersDeps) {}

  /** The decision's order, as it was decided (and, for an ask rule, proposed): never the rule's edit since. */
  private orderOf(decision: DecisionRow): OrderRequest {
    return {
      symbol: decision.symbol,
      side: decision.side,
      type: 'market',
      amount: Number(decision.amountUsd),
    };
  }

  /**
   * The order a decision sends: its stop loss and take profit go with it, to rest on the exchange as the
   * position's protection (they replace what protected that position before, as the latest entry's
   * legs do on Binance's position TP/SL).
   */
  private sentOrderOf(decision: DecisionRow): OrderRequest {
    const plan = decision.exitPlan;
    const order = this.orderOf(decision);
    if (plan === null || (plan.stop_loss_pct === undefined && plan.take_profit_pct === undefined))
      return order;
    return {
      ...order,
      protection: {
        ...(plan.stop_loss_pct === undefined ? {} : { stop_loss_pct: plan.stop_loss_pct }),
        ...(plan.take_profit_pct === undefined ? {} : { take_profit_pct: plan.take_profit_pct }),
      },
    };
  }

  /**
   * The decision's own account, whatever the user picked for manual trading since; null, the decision
   * skipped, when its key is no longer saved.
   */
  async venueOrSkip(decision: DecisionRow): Promise<OrderVenue | null> {
    try {
      return await this.d.trading.venueOf(decision.userId, decision.account);
    } catch {
      await this.skip(decision, 'account_missing', ACCOUNT_MISSING);
      return null;
    }
  }

  /** A decision the risk envelope refused: skipped, with what paper would have done on a key's. */
  async refuse(
    decision: DecisionRow,
    venue: OrderVenue,
    check: { reason: string; detail: string },
  ): Promise<void> {
    if (venue.mode !== 'paper') await this.recordTwin(decision);
    await this.skip(decision, check.reason, check.detail);
  }

  /** What paper would have filled for the decision, kept beside it (part of the reality gap). */
  async recordTwin(decision: DecisionRow): Promise<void> {
    const twin = await this.d.trading.paperTwin(decision.userId, this.orderOf(decision));
    await this.d.repo.updateDecision(
      decision.id,
      'refused' in twin
        ? { twinRefused: twin.refused }
        : { twinPrice: String(twin.price), twinQuantity: String(twin.quantity), twinFee: String(twin.fee) },
    );
  }

  /**
   * Sends the decision's order under its (rule, signal) key, on the decision's account, and records what
   * came of it: the order when it was placed, else null (skipped, or its outcome unknown for now).
   */
  async send(decision: DecisionRow, receivedAt: number, venue: OrderVenue): Promise<OrderResponse | null> {
    const key = ruleOrderKey(decision.ruleId, String(decision.signalId));
    const request = this.sentOrderOf(decision);
    const sentAt = this.d.clock.now();
    // Marked as on its way before it goes, and only while its story stands: a retraction that came while
    // the decision waited its turn has cancelled it, and one that comes from here on finds it sent.
    if (!(await this.d.repo.markSending(decision.id, new Date(sentAt)))) {
      this.d.log.info(
        { decision: decision.id, rule: decision.ruleId },
        'rule order not sent: its story was retracted',
      );
      this.d.unsent?.(decision);
      return null;
    }
    const sending = { ...decision, sentAt: new Date(sentAt) };
    // A decision on a key gets its shadow paper twin at the same moment: what paper would have filled.
    const twin = venue.mode === 'paper' ? null : this.recordTwin(decision).catch(() => undefined);
    try {
      const order = await this.d.trading.placeOrder(decision.userId, request, key, {
        account: decision.account,
        origin: { source: 'rule', ruleId: decision.ruleId, ruleName: decision.ruleName },
      });
      await twin;
      await this.fired(sending, order, this.d.clock.now() - receivedAt, sentAt);
      return order;
    } catch (err) {
      await twin;
      if (err instanceof AppError && err.code === 'OUTCOME_UNKNOWN') {
        // Not failed: it stays pending (its budget counted) until a look-up settles it.
        await this.d.repo.updateDecision(decision.id, {
          detail: `Outcome unknown; looking the order up. ${err.detail}`,
        });
        this.recheckLater(sending);
        return null;
      }
      const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'The order failed.';
      await this.skip(sending, 'exchange', detail);
      if (!(err instanceof Error && 'detail' in err))
        this.d.log.warn({ err, rule: decision.ruleId }, 'rule order failed');
      return null;
    }
  }

  /** Looks an order of unknown outcome up again after the settle time, then settles its decision. */
  private recheckLater(decision: DecisionRow): void {
    const cancel = this.d.clock.setTimer(() => {
      this.unknown.delete(cancel);
      void this.settle(decision).catch((err: unknown) =>
        this.d.log.warn({ err, decision: decision.id }, 'unknown rule order not settled yet'),
      );
    }, this.d.unknownRecheckMs ?? UNKNOWN_RECHECK_MS);
    this.unknown.add(cancel);
  }

  /**
   * Settles a pending decision by looking its order up: found, it fired; not found once the order can no
   * longer arrive, nothing was placed. Still unknown (the venue does not answer), it stays pending for
   * the next sweep.
   */
  private async settle(decision: DecisionRow, crashed = false): Promise<void> {
    const key = ruleOrderKey(decision.ruleId, String(decision.signalId));
    let order: OrderResponse | null;
    try {
      order = await this.d.trading.findOrder(decision.userId, key);
    } catch {
      return; // no answer: the sweep asks again
    }
    if (order !== null) {
      await this.fired(decision, order, decision.latencyMs, decision.sentAt?.getTime() ?? null);
    } else if (crashed) {
      await this.skip(
        decision,
        'stale',
        'The server stopped before this order was known to be placed; looked up by its client id, it was not, and it was not sent late.',
      );
    } else {
      await this.skip(
        decision,
        'exchange',
        'The exchange did not say whether the order was placed; looked up by its client id, it was not.',
      );
    }
  }

  /** Stops the look-ups scheduled for unknown outcomes (shutdown); the sweep settles them later. */
  stop(): void {
    for (const cancel of this.unknown) cancel();
    this.unknown.clear();
  }

  /**
   * Records the fill, only while the decision is pending: a second answer for the same order (a look-up
   * racing the venue's answer) changes nothing. A fill on a story retracted meanwhile is unwound at once.
   */
  private async fired(
    decision: DecisionRow,
    order: OrderResponse,
    latencyMs: number | null,
    sentAt: number | null,
  ): Promise<void> {
    const set = {
      ...firedUpdate(order, latencyMs, sentAt, this.d.clock.now()),
      exitOnVenue: legsRest(order),
    };
    const { won, retractedBy } = await this.d.repo.settle(decision.id, set);
    if (!won) return;
    this.d.stats.fired += 1;
    const row = { ...decision, ...set, retractedBy } as DecisionRow;
    this.d.decided?.('fired', row);
    if (retractedBy !== null && this.d.retracted !== undefined) await this.d.retracted(row);
  }

  /**
   * Ends a decision without an order, only while it is still pending (or asking): why, for the ledger and
   * the trader. A decision settled meanwhile (cancelled by a retraction) keeps its outcome.
   */
  async skip(decision: DecisionRow, reason: string, detail: string): Promise<void> {
    const { won } = await this.d.repo.settle(
      decision.id,
      { outcome: 'skipped', reason, detail },
      'pending-or-asking',
    );
    if (!won) return;
    this.d.stats.skipped += 1;
    this.d.decided?.('skipped', { ...decision, outcome: 'skipped', reason, detail });
  }

  /**
   * Decisions a crash left `pending`: the order may or may not have been sent. Looked up by its key first;
   * found, it is recorded as fired; not found, it is never sent late (the news is old by now).
   */
  async recoverPending(): Promise<void> {
    const pending = await this.d.repo.pendingDecisions(new Date(this.d.clock.now() - INTERRUPTED_MS));
    // The send time is written just before the order goes, so a crash can leave it on an order that never
    // left: whatever it holds, an order the venue does not know was not placed, and is never sent late.
    for (const decision of pending) await this.settle(decision, true);
    if (pending.length > 0)
      this.d.log.info({ pending: pending.length }, 'interrupted rule decisions resolved');
  }
}
