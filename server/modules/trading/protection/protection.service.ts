import Decimal from 'decimal.js';
import {
  NO_PROTECTION,
  protectionAsked,
  type PositionProtection,
  type ProtectionInput,
  type ProtectionReceipt,
} from '../../../../src/contracts/protection';
import { pairOf } from '../../../../src/contracts/trading';
import { appError, RequestValidationError } from '../../../plugins/errors';
import type { ResolvedAccount } from '../accounts';
import { type ExchangeEvent } from '../exchange';
import {
  LEG_KINDS,
  LEG_NAMES,
  legClientId,
  liveLeg,
  plannedLegs,
  wireProtection,
  type StoredLegs,
} from './legs';
import { conflict, holdsLegs, LegOrders, WIRE_LEG } from './leg-orders';
import type { PositionKey, ProtectionRow } from './protection.repo';
import { planOf, pricesOnTick, sameLegs } from './plan';
import { Reconciler } from './reconcile';
import { EXIT_CLOSING_STALE_MS, TimeExits, type TimeExitDeps } from './time-exits';

/** The venue accounts, the reduce-only close the time exit sends, the user's notices and the lock. */
export interface ProtectionServiceDeps extends Omit<TimeExitDeps, 'now' | 'reconcile'> {
  /**
   * Runs `work` holding the user's protection lock, shared by every process on the database: two
   * processes setting one position's legs at once would otherwise cancel and place over each other.
   */
  lock?: <T>(userId: string, work: () => Promise<T>) => Promise<T>;
  now?: () => number;
}

/**
 * Each position's protection: its stop-loss, take-profit and trailing stop rest on the venue as
 * conditional orders (they outlive this server, its network and a revoked session), and this service
 * keeps what should rest there. Legs are placed as soon as a fill is known, and the gap is measured; a leg
 * the venue refuses closes the position at market; a leg that vanished is placed again; one that fired
 * cancels the others. The time exit is the server's: `open → closing → closed`, retried until the venue
 * confirms the close. Work on one position runs one task at a time in this process, a user's work holds
 * a lock shared by every process, and every write is conditional on the row's version.
 */
export class ProtectionService {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly now: () => number;
  /** Accounts with a reconciliation asked for and not yet run (events come in bursts). */
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /**
   * The accounts that hold a protection row (`user\0account`), as this process last read them (every few
   * seconds) or wrote them: a fill on any other account costs no database read. One protected by another
   * process in the last seconds waits for the periodic round at worst.
   */
  private guarded = new Set<string>();

  private readonly legs: LegOrders;
  private readonly reconciler: Reconciler;
  private readonly exits: TimeExits;

  constructor(private readonly d: ProtectionServiceDeps) {
    this.now = d.now ?? Date.now;
    this.legs = new LegOrders(d);
    this.reconciler = new Reconciler({
      ...d,
      legs: this.legs,
      afterPlacing: (where, row) => this.afterPlacing(where, row),
    });
    this.exits = new TimeExits({
      ...d,
      now: this.now,
      reconcile: (userId, account, symbol) => this.reconciler.position(userId, account, symbol),
    });
  }

  /** The protection of each of the user's positions on `account`, by exchange symbol. */
  async view(userId: string, account: string): Promise<Map<string, PositionProtection>> {
    if (!this.guarded.has(accountKey(userId, account))) return new Map();
    const rows = await this.d.repo.ofAccount(userId, account);
    return new Map(rows.map((r) => [r.symbol, wireProtection(r)]));
  }

  /**
   * Sets (or replaces) the protection of the open position on `symbol`: the prices from the position's
   * entry, checked against the venue's own mark (a stop that would fire at once is refused with a 422),
   * the old legs cancelled first, then each leg placed and confirmed. `filledAt` is when the entry's fill
   * was known: the receipt's unprotected gap runs from it.
   */
  set(
    userId: string,
    accountName: string,
    symbol: string,
    input: ProtectionInput,
    filledAt?: number,
  ): Promise<ProtectionReceipt> {
    return this.serial({ userId, account: accountName, symbol }, () =>
      this.setNow(userId, accountName, symbol, input, filledAt),
    );
  }

  /** Protection for the position an order just built: a receipt, never a throw (the order stands). */
  async afterOrder(
    userId: string,
    accountName: string,
    symbol: string,
    input: ProtectionInput | undefined,
    filledAt: number,
  ): Promise<ProtectionReceipt | null> {
    if (!protectionAsked(input)) {
      if (!this.guarded.has(accountKey(userId, accountName))) return null;
      // An order on a protected position: its trailing stop follows the new size.
      void this.serial({ userId, account: accountName, symbol }, () =>
        this.reconciler.position(userId, accountName, symbol),
      ).catch((err: unknown) => this.d.log.warn({ err, userId, symbol }, 'protection not reconciled'));
      return null;
    }
    try {
      return await this.set(userId, accountName, symbol, input, filledAt);
    } catch (err) {
      const note =
        err instanceof RequestValidationError
          ? (err.issues[0]?.msg ?? 'The protection was not valid.')
          : err instanceof Error && 'detail' in err
            ? String(err.detail)
            : 'The protection could not be placed.';
      this.d.log.warn({ err, userId, symbol }, 'protection after an order not placed');
      return { ...NO_PROTECTION, unprotected_ms: null, note: `Not protected: ${note}` };
    }
  }

  /** Removes the position's protection: its legs cancelled on the venue, its time exit dropped. */
  remove(userId: string, accountName: string, symbol: string): Promise<PositionProtection> {
    return this.serial({ userId, account: accountName, symbol }, async () => {
      const row = await this.d.repo.get({ userId, account: accountName, symbol });
      if (row === null) return NO_PROTECTION;
      const where = await this.d.account(userId, accountName);
      await this.legs.cancelLegs(where, row);
      if (!(await this.d.repo.remove(row.id, row.version))) conflict();
      return NO_PROTECTION;
    });
  }

  /** Moves the stop to the position's break-even price, keeping the target, trailing stop and time exit. */
  async breakEven(userId: string, accountName: string, symbol: string): Promise<ProtectionReceipt> {
    const where = await this.d.account(userId, accountName);
    const position = await this.legs.positionOf(where, symbol);
    if (position === null) throw appError('NOT_FOUND', noPosition(symbol));
    const row = await this.d.repo.get({ userId, account: accountName, symbol });
    const input: ProtectionInput = { stop_loss_price: Number(position.breakEvenPrice) };
    if (row !== null) {
      if (row.takeProfitPrice !== null) input.take_profit_price = Number(row.takeProfitPrice);
      if (row.trailingPct !== null) input.trailing_pct = Number(row.trailingPct);
      if (row.exitAt !== null && row.exitState === 'open') {
        input.exit_after_min = Math.max(1, Math.ceil((row.exitAt.getTime() - this.now()) / 60_000));
      }
    }
    return this.set(userId, accountName, symbol, input);
  }

  /** A position closed by hand (or by a close-all): its legs are cancelled and its row dropped. */
  async positionClosed(userId: string, accountName: string, symbol: string): Promise<void> {
    await this.serial({ userId, account: accountName, symbol }, () =>
      this.reconciler.position(userId, accountName, symbol),
    ).catch((err: unknown) => this.d.log.warn({ err, userId, symbol }, 'protection not reconciled'));
  }

  /** A venue event on an account (a leg changed, a fill, a position update): reconcile it soon. */
  onVenueEvent(userId: string, accountName: string, event: ExchangeEvent): void {
    if (event.e !== 'ALGO_UPDATE' && event.e !== 'ACCOUNT_UPDATE') return;
    if (this.guarded.has(accountKey(userId, accountName))) this.reconcileSoon(userId, accountName);
  }

  /** Reads which accounts hold protection (the cheap check in front of every fill's reconciliation). */
  async refreshGuarded(): Promise<void> {
    this.guarded = new Set((await this.d.repo.accounts()).map((a) => accountKey(a.userId, a.account)));
  }

  /** Reconciles one account 200 ms from now (several events in a burst: once). */
  reconcileSoon(userId: string, accountName: string, ms = 200): void {
    const key = `${userId}\u0000${accountName}`;
    if (this.pending.has(key)) return;
    const timer = setTimeout(() => {
      this.pending.delete(key);
      void this.reconcileAccount(userId, accountName).catch((err: unknown) =>
        this.d.log.warn({ err, userId }, 'protection not reconciled'),
      );
    }, ms);
    timer.unref();
    this.pending.set(key, timer);
  }

  /** Every protected position, account by account (the periodic round): what rests matches what should. */
  async reconcileAll(): Promise<void> {
    const rows = await this.d.repo.all();
    const accounts = new Map<string, { userId: string; account: string }>();
    for (const r of rows)
      accounts.set(`${r.userId}\u0000${r.account}`, { userId: r.userId, account: r.account });
    await Promise.all(
      [...accounts.values()].map((a) =>
        this.reconcileAccount(a.userId, a.account).catch((err: unknown) =>
          this.d.log.warn({ err, userId: a.userId }, 'protection not reconciled'),
        ),
      ),
    );
  }

  async reconcileAccount(userId: string, accountName: string): Promise<void> {
    const rows = await this.d.repo.ofAccount(userId, accountName);
    for (const row of rows) {
      await this.serial({ userId, account: accountName, symbol: row.symbol }, () =>
        this.reconciler.position(userId, accountName, row.symbol),
      );
    }
  }

  /**
   * Runs the time exits that are due (and those a dead process left closing): each claimed by one
   * conditional write, closed reduce-only under a client id looked up before any resend, and closed only
   * when the venue confirms; a failure opens it again with a back-off.
   */
  async runDueExits(): Promise<number> {
    const claimed = await this.d.repo.claimDueExits(new Date(this.now()), EXIT_CLOSING_STALE_MS);
    await Promise.all(
      claimed.map((row) =>
        this.serial(row, () => this.exits.close(row)).catch((err: unknown) =>
          this.d.log.warn({ err, userId: row.userId, symbol: row.symbol }, 'time exit not run'),
        ),
      ),
    );
    return claimed.length;
  }

  stop(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  // ---------------------------------------------------------------------------------------------------

  private async setNow(
    userId: string,
    accountName: string,
    symbol: string,
    input: ProtectionInput,
    filledAt: number | undefined,
  ): Promise<ProtectionReceipt> {
    const where = await this.d.account(userId, accountName);
    const priced =
      input.stop_loss_pct !== undefined ||
      input.stop_loss_price !== undefined ||
      input.take_profit_pct !== undefined ||
      input.take_profit_price !== undefined ||
      input.trailing_pct !== undefined;
    if (priced && !holdsLegs(where.adapter)) {
      throw new RequestValidationError([
        {
          loc: ['body', 'protection'],
          msg: 'This exchange cannot hold stops or targets.',
          type: 'value_error',
        },
      ]);
    }
    const position = await this.legs.positionOf(where, symbol);
    if (position === null) throw appError('NOT_FOUND', noPosition(symbol));
    const amount = new Decimal(position.positionAmt);
    const side = amount.gt(0) ? 'long' : 'short';
    const tick = await this.legs.tickOf(where, symbol);
    const prices = pricesOnTick(input, side, Number(position.entryPrice), Number(position.markPrice), tick);
    const key = { userId, account: accountName, symbol };
    const old = await this.d.repo.get(key);
    const exitAt =
      input.exit_after_min === undefined ? null : new Date(this.now() + input.exit_after_min * 60_000);
    const plan = planOf(side, prices, input);
    // The same legs asked again (a retried order, a form saved twice) while they rest: nothing is
    // cancelled or placed, so the position is never bare for a replacement it did not need.
    if (old !== null && old.exitState !== 'closing' && sameLegs(old, plan)) {
      if (exitAt === null && old.exitAt === null) {
        return { ...wireProtection(old), unprotected_ms: null, note: null };
      }
      const moved = await this.d.repo.update(old.id, old.version, {
        exitAt,
        exitState: exitAt === null ? null : 'open',
        exitAttempts: 0,
        exitNextAt: null,
        exitClientId: null,
        exitStartedAt: null,
        exitNote: null,
      });
      return { ...wireProtection(moved ?? conflict()), unprotected_ms: null, note: null };
    }
    // The old legs go first: Binance holds one whole-position stop per side, and a replaced stop must
    // never fire after the user moved it. A cancel that fails changes nothing.
    if (old !== null) {
      await this.legs.cancelLegs(where, old);
    }
    let row = await this.d.repo.upsert(key, { ...plan, legs: {}, exitAt });
    this.guarded.add(accountKey(userId, accountName));
    const legs: StoredLegs = {};
    for (const kind of plannedLegs({ symbol, ...plan })) {
      const gen = (old?.legs[kind]?.gen ?? 0) + 1;
      legs[kind] = {
        cid: legClientId(row.id, kind, gen),
        algoId: null,
        state: 'placing',
        gen,
        quantity: kind === 'trail' ? amount.abs().toFixed() : null,
      };
    }
    row = (await this.d.repo.update(row.id, row.version, { legs })) ?? conflict();
    const placed = await this.legs.placeLegs(where, row, legs);
    row = (await this.d.repo.update(row.id, row.version, { legs: placed })) ?? conflict();
    const note = await this.afterPlacing(where, row);
    const latest = (await this.d.repo.get(key)) ?? row;
    const confirmed = LEG_KINDS.every((k) => placed[k] === undefined || placed[k].state !== 'placing');
    return {
      ...wireProtection(latest),
      unprotected_ms:
        filledAt === undefined || !confirmed || plannedLegs({ symbol, ...plan }).length === 0
          ? null
          : Math.max(0, this.now() - filledAt),
      note,
    };
  }

  /**
   * After legs were placed: a refused one closes the position at market (a position the user asked to
   * protect is never left naked) through the time exit's lifecycle, due now; the note says why.
   */
  private async afterPlacing(where: ResolvedAccount, row: ProtectionRow): Promise<string | null> {
    const refused = LEG_KINDS.filter((k) => row.legs[k]?.state === 'refused');
    const unconfirmed = LEG_KINDS.filter((k) => row.legs[k]?.state === 'placing');
    if (refused.length > 0) {
      const words = refused
        .map((k) => `the ${LEG_NAMES[k]} (${row.legs[k]?.note ?? 'refused'})`)
        .join(' and ');
      const note = `The exchange refused ${words}: the position is being closed at market.`;
      const others = LEG_KINDS.filter((k) => !refused.includes(k) && liveLeg(row.legs[k]));
      for (const k of others)
        await this.legs.cancelLeg(where, row.symbol, k, row.legs[k]).catch(() => undefined);
      const legs: StoredLegs = {};
      for (const k of LEG_KINDS) {
        const leg = row.legs[k];
        if (leg !== undefined) legs[k] = others.includes(k) ? { ...leg, state: 'refused' } : leg;
      }
      const due = await this.d.repo.update(row.id, row.version, {
        legs,
        exitAt: new Date(this.now()),
        exitState: 'open',
        exitNextAt: null,
        exitNote: note,
      });
      this.d.notify(row.userId, {
        symbol: pairOf(row.symbol),
        event: 'refused',
        leg: WIRE_LEG[refused[0] ?? 'sl'],
        text: note,
      });
      if (due !== null) {
        const [claimed] = await this.d.repo.claimDueExits(new Date(this.now()), EXIT_CLOSING_STALE_MS, [
          due.id,
        ]);
        if (claimed !== undefined) await this.exits.close(claimed);
      }
      return note;
    }
    if (unconfirmed.length > 0) {
      this.reconcileSoon(row.userId, row.account, 2_000);
      return `The exchange has not confirmed the ${unconfirmed.map((k) => LEG_NAMES[k]).join(' and ')} yet: it is being looked up.`;
    }
    return null;
  }

  private serial<T>(key: PositionKey, task: () => Promise<T>): Promise<T> {
    const k = `${key.userId}\u0000${key.account}\u0000${key.symbol}`;
    const previous = this.queues.get(k) ?? Promise.resolve();
    const lock = this.d.lock;
    const locked = lock === undefined ? task : () => lock(key.userId, task);
    const run = previous.then(locked, locked);
    const settled = run.catch(() => undefined);
    this.queues.set(k, settled);
    void settled.then(() => {
      if (this.queues.get(k) === settled) this.queues.delete(k);
    });
    return run;
  }
}

const accountKey = (userId: string, account: string) => `${userId}\u0000${account}`;
const noPosition = (symbol: string) => `No open position on ${pairOf(symbol)}.`;
