import Decimal from 'decimal.js';
import {
  NO_PROTECTION,
  protectionAsked,
  protectionPrices,
  protectionProblem,
  type PositionProtection,
  type ProtectionInput,
  type ProtectionReceipt,
} from '../../../../src/contracts/protection';
import { pairOf, type OrderResponse, type PositionsMessage } from '../../../../src/contracts/trading';
import { appError, RequestValidationError } from '../../../plugins/errors';
import type { ResolvedAccount } from '../accounts';
import {
  FIRED_CONDITIONALS,
  RESTING_CONDITIONALS,
  type ConditionalOrder,
  type ExchangeAdapter,
  type ExchangeEvent,
  type PositionRisk,
} from '../exchange';
import { ExchangeError, OrderOutcomeUnknown } from '../exchange-error';
import { filtersFor } from '../paper/filters';
import {
  LEG_KINDS,
  LEG_NAMES,
  legClientId,
  legRequest,
  liveLeg,
  plannedLegs,
  wireProtection,
  type LegKind,
  type StoredLeg,
  type StoredLegs,
} from './legs';
import type { PositionKey, ProtectionRepo, ProtectionRow } from './protection.repo';

/** A venue that holds conditional orders: the four calls, present. */
type ConditionalVenue = Required<
  Pick<ExchangeAdapter, 'placeConditional' | 'queryConditional' | 'cancelConditional' | 'openConditionals'>
> &
  ExchangeAdapter;

const holdsLegs = (adapter: ExchangeAdapter): adapter is ConditionalVenue =>
  adapter.placeConditional !== undefined &&
  adapter.queryConditional !== undefined &&
  adapter.cancelConditional !== undefined &&
  adapter.openConditionals !== undefined;

/**
 * Waits before each new try of an exit that failed; the last repeats for as long as it takes. The rules'
 * exits wait the same (they take it from here).
 */
export const EXIT_BACKOFF_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000] as const;
/** After this many failed tries the user is told (and it keeps trying). */
export const EXIT_TELL_AFTER = 3;
/** A time exit left `closing` this long was being closed by a process that died: it is taken up again. */
export const EXIT_CLOSING_STALE_MS = 30_000;

type Notice = Extract<PositionsMessage, { type: 'protection' }>;
const WIRE_LEG: Record<LegKind, Notice['leg']> = { sl: 'stop_loss', tp: 'take_profit', trail: 'trailing' };

export interface ProtectionServiceDeps {
  repo: ProtectionRepo;
  /** The account an earlier order went to, by its name (`paper` or a key id). */
  account(userId: string, name: string): Promise<ResolvedAccount>;
  /**
   * Market, reduce-only: closes up to `quantity` of the position `opened` built, never more, never the
   * other way; null when nothing of it is left. Recorded in the trade history like every close.
   */
  reduce(
    userId: string,
    account: string,
    request: { symbol: string; opened: 'long' | 'short'; quantity: number; clientOrderId: string },
  ): Promise<OrderResponse | null>;
  /** Tells the user (the positions socket: terminal and toast; the bus: Telegram and push). */
  notify(userId: string, notice: Omit<Notice, 'type' | 'time'>): void;
  /**
   * Runs `work` holding the user's protection lock, shared by every process on the database: two
   * processes setting one position's legs at once would otherwise cancel and place over each other.
   */
  lock?: <T>(userId: string, work: () => Promise<T>) => Promise<T>;
  now?: () => number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

const fmt = (n: number): string => {
  const digits = n >= 1000 ? 2 : n >= 1 ? 4 : 8;
  return String(Number(n.toFixed(digits)));
};

/** Rounds a trigger price to the symbol's tick: a stop away from the price, never onto its far side. */
function toTick(price: number, tick: Decimal | null): string {
  if (tick === null || tick.lte(0)) return new Decimal(price).toSignificantDigits(8).toFixed();
  return new Decimal(price).toNearest(tick, Decimal.ROUND_HALF_UP).toFixed();
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

  constructor(private readonly d: ProtectionServiceDeps) {
    this.now = d.now ?? Date.now;
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
        this.reconcilePosition(userId, accountName, symbol),
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
      await this.cancelLegs(where, row);
      if (!(await this.d.repo.remove(row.id, row.version))) throw appError('CONFLICT', CHANGED);
      return NO_PROTECTION;
    });
  }

  /** Moves the stop to the position's break-even price, keeping the target, trailing stop and time exit. */
  async breakEven(userId: string, accountName: string, symbol: string): Promise<ProtectionReceipt> {
    const where = await this.d.account(userId, accountName);
    const position = await this.positionOf(where, symbol);
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
      this.reconcilePosition(userId, accountName, symbol),
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
        this.reconcilePosition(userId, accountName, row.symbol),
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
        this.serial(row, () => this.closeForExit(row)).catch((err: unknown) =>
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
    const position = await this.positionOf(where, symbol);
    if (position === null) throw appError('NOT_FOUND', noPosition(symbol));
    const amount = new Decimal(position.positionAmt);
    const side = amount.gt(0) ? 'long' : 'short';
    const entry = Number(position.entryPrice);
    const mark = Number(position.markPrice);
    const tick = await this.tickOf(where, symbol);
    const raw = protectionPrices(input, side, entry);
    const prices = {
      stopLoss: raw.stopLoss === null ? null : Number(toTick(raw.stopLoss, tick)),
      takeProfit: raw.takeProfit === null ? null : Number(toTick(raw.takeProfit, tick)),
    };
    const problem = protectionProblem(prices, side, mark, fmt);
    if (problem !== null) {
      const field = problem.includes('stop loss') ? 'stop_loss' : 'take_profit';
      throw new RequestValidationError([{ loc: ['body', field], msg: problem, type: 'value_error' }]);
    }
    const key = { userId, account: accountName, symbol };
    const old = await this.d.repo.get(key);
    const exitAt =
      input.exit_after_min === undefined ? null : new Date(this.now() + input.exit_after_min * 60_000);
    const plan = {
      side,
      stopLossPrice: prices.stopLoss === null ? null : String(prices.stopLoss),
      takeProfitPrice: prices.takeProfit === null ? null : String(prices.takeProfit),
      trailingPct: input.trailing_pct === undefined ? null : String(input.trailing_pct),
    } as const;
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
      return { ...wireProtection(moved ?? fail()), unprotected_ms: null, note: null };
    }
    // The old legs go first: Binance holds one whole-position stop per side, and a replaced stop must
    // never fire after the user moved it. A cancel that fails changes nothing.
    if (old !== null) {
      await this.cancelLegs(where, old);
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
    row = (await this.d.repo.update(row.id, row.version, { legs })) ?? fail();
    const placed = await this.placeLegs(where, row, legs);
    row = (await this.d.repo.update(row.id, row.version, { legs: placed })) ?? fail();
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

  /** Places each leg (in parallel), confirming each: resting, refused, or placing while still unknown. */
  private async placeLegs(where: ResolvedAccount, row: ProtectionRow, legs: StoredLegs): Promise<StoredLegs> {
    const out: StoredLegs = { ...legs };
    await Promise.all(
      LEG_KINDS.map(async (kind) => {
        const leg = legs[kind];
        if (leg === undefined || !liveLeg(leg)) return;
        out[kind] = await this.placeLeg(where, row, kind, leg);
      }),
    );
    return out;
  }

  private async placeLeg(
    where: ResolvedAccount,
    row: ProtectionRow,
    kind: LegKind,
    leg: StoredLeg,
  ): Promise<StoredLeg> {
    const venue = where.adapter as ConditionalVenue;
    const request = legRequest(row, kind, leg.cid, leg.quantity ?? '0');
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        return legFrom(leg, await venue.placeConditional(where.account, request));
      } catch (err) {
        if (err instanceof ExchangeError) return { ...leg, state: 'refused', note: err.msg };
        if (!(err instanceof OrderOutcomeUnknown)) {
          this.d.log.warn({ err, symbol: row.symbol, leg: kind }, 'protection leg not placed');
          return { ...leg, state: 'placing', note: 'not confirmed yet' };
        }
        // No clear answer: it may rest already. Look it up; place it again only when the venue says no.
        const found = await venue.queryConditional(where.account, row.symbol, leg.cid).catch(() => undefined);
        if (found === undefined) return { ...leg, state: 'placing', note: 'not confirmed yet' };
        if (found !== null) return legFrom(leg, found);
      }
    }
    return { ...leg, state: 'placing', note: 'not confirmed yet' };
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
      for (const k of others) await this.cancelLeg(where, row.symbol, k, row.legs[k]).catch(() => undefined);
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
        if (claimed !== undefined) await this.closeForExit(claimed);
      }
      return note;
    }
    if (unconfirmed.length > 0) {
      this.reconcileSoon(row.userId, row.account, 2_000);
      return `The exchange has not confirmed the ${unconfirmed.map((k) => LEG_NAMES[k]).join(' and ')} yet: it is being looked up.`;
    }
    return null;
  }

  /**
   * One position: the legs that should rest are compared with the venue's open conditional orders. A
   * position that is gone (or turned) ends its protection: the legs left are cancelled (one fired: the
   * others must not open a new position) and the row dropped. A leg that vanished while the position is
   * open is placed again under a new client id, and the user is told; a trailing stop follows the size.
   */
  private async reconcilePosition(userId: string, accountName: string, symbol: string): Promise<void> {
    let row = await this.d.repo.get({ userId, account: accountName, symbol });
    if (row === null) return;
    const where = await this.d.account(userId, accountName);
    if (!holdsLegs(where.adapter)) return;
    const venue = where.adapter;
    const [position, open] = await Promise.all([
      this.positionOf(where, symbol),
      venue.openConditionals(where.account, symbol),
    ]);
    const resting = new Map(open.map((o) => [o.clientAlgoId, o]));
    const sideNow = position === null ? null : Number(position.positionAmt) > 0 ? 'long' : 'short';
    if (sideNow !== row.side) {
      await this.endProtection(where, row, resting);
      return;
    }
    const size = new Decimal(position?.positionAmt ?? 0).abs().toFixed();
    // What became of each leg that no longer rests: a stop or target that fired closes the position
    // (whatever positionRisk said a moment ago), so nothing is placed again and the others end.
    const gone = new Map<LegKind, ConditionalOrder | null>();
    for (const kind of LEG_KINDS) {
      const leg = row.legs[kind];
      if (liveLeg(leg) && !resting.has(leg.cid)) {
        gone.set(kind, await venue.queryConditional(where.account, symbol, leg.cid));
      }
    }
    const fired = (kind: LegKind) => {
      const found = gone.get(kind);
      return found !== undefined && found !== null && FIRED_CONDITIONALS.has(found.status);
    };
    if (fired('sl') || fired('tp')) {
      await this.endProtection(where, row, resting);
      return;
    }
    const legs: StoredLegs = { ...row.legs };
    let changed = false;
    for (const kind of LEG_KINDS) {
      const leg = legs[kind];
      if (!liveLeg(leg)) continue;
      const seen = resting.get(leg.cid);
      if (seen !== undefined) {
        if (kind === 'trail' && leg.quantity !== size) {
          // The position grew or shrank: the trailing stop is placed again for its new size.
          await venue.cancelConditional(where.account, symbol, leg.cid);
          const next: StoredLeg = {
            ...leg,
            cid: legClientId(row.id, kind, leg.gen + 1),
            gen: leg.gen + 1,
            quantity: size,
            state: 'placing',
            algoId: null,
          };
          legs[kind] = await this.placeLeg(where, row, kind, next);
          changed = true;
        } else if (leg.state !== 'resting') {
          legs[kind] = legFrom(leg, seen);
          changed = true;
        }
        continue;
      }
      const found = gone.get(kind) ?? null;
      if (fired(kind)) {
        // A trailing stop for part of the position fired; the rest stays open and keeps its other legs.
        legs[kind] = { ...leg, state: 'triggered' };
        changed = true;
        continue;
      }
      if (leg.state === 'placing' && found === null) {
        // Never confirmed and the venue does not know it: place it now under the same client id.
        legs[kind] = await this.placeLeg(where, row, kind, leg);
        changed = true;
        continue;
      }
      // Cancelled on the venue's site, expired, or refused after resting: it goes back, once the
      // position is seen open again right now (not as it was when this round began).
      const now = await this.positionOf(where, symbol);
      if (now === null || (Number(now.positionAmt) > 0 ? 'long' : 'short') !== row.side) {
        await this.endProtection(where, row, resting);
        return;
      }
      const next: StoredLeg = {
        cid: legClientId(row.id, kind, leg.gen + 1),
        gen: leg.gen + 1,
        algoId: null,
        state: 'missing',
        quantity: kind === 'trail' ? size : null,
      };
      legs[kind] = await this.placeLeg(where, row, kind, next);
      changed = true;
      const placed = legs[kind];
      const text =
        placed?.state === 'refused'
          ? `The ${LEG_NAMES[kind]} on ${pairOf(symbol)} vanished from the exchange and was refused when placed again (${placed.note ?? 'refused'}).`
          : `The ${LEG_NAMES[kind]} on ${pairOf(symbol)} vanished from the exchange${found === null ? '' : ` (${found.status.toLowerCase()})`} and was placed again.`;
      this.d.notify(userId, { symbol: pairOf(symbol), event: 'placed_again', leg: WIRE_LEG[kind], text });
      this.d.log.info({ userId, symbol, leg: kind }, 'protection leg placed again');
    }
    if (!changed) return;
    row = (await this.d.repo.update(row.id, row.version, { legs })) ?? fail();
    await this.afterPlacing(where, row);
  }

  /** The position is gone: legs that fired are told of, the rest cancelled, the row dropped. */
  private async endProtection(
    where: ResolvedAccount,
    row: ProtectionRow,
    resting: Map<string, ConditionalOrder>,
  ): Promise<void> {
    const venue = where.adapter as ConditionalVenue;
    for (const kind of LEG_KINDS) {
      const leg = row.legs[kind];
      if (!liveLeg(leg)) continue;
      if (resting.has(leg.cid)) {
        await venue.cancelConditional(where.account, row.symbol, leg.cid);
        continue;
      }
      const found = await venue.queryConditional(where.account, row.symbol, leg.cid);
      if (found !== null && FIRED_CONDITIONALS.has(found.status)) {
        const text = `The ${LEG_NAMES[kind]} on ${pairOf(row.symbol)} fired${found.triggerPrice === null ? '' : ` at ${found.triggerPrice}`}: the position is closed.`;
        this.d.notify(row.userId, { symbol: pairOf(row.symbol), event: 'fired', leg: WIRE_LEG[kind], text });
      }
    }
    if (!(await this.d.repo.remove(row.id, row.version))) {
      this.d.log.info({ symbol: row.symbol }, 'protection changed while it ended');
    }
  }

  /** Cancels every leg still meant to rest; throws (changing nothing) when the venue does not answer. */
  private async cancelLegs(where: ResolvedAccount, row: ProtectionRow): Promise<void> {
    for (const kind of LEG_KINDS) await this.cancelLeg(where, row.symbol, kind, row.legs[kind]);
  }

  private async cancelLeg(
    where: ResolvedAccount,
    symbol: string,
    kind: LegKind,
    leg: StoredLeg | undefined,
  ): Promise<void> {
    if (!liveLeg(leg) || !holdsLegs(where.adapter)) return;
    try {
      await where.adapter.cancelConditional(where.account, symbol, leg.cid);
    } catch (err) {
      throw err instanceof ExchangeError
        ? appError(
            'BAD_REQUEST',
            `The exchange did not cancel the ${LEG_NAMES[kind]}: ${err.msg} Nothing was changed.`,
          )
        : appError(
            'SERVICE_UNAVAILABLE',
            `The exchange did not answer the cancel of the ${LEG_NAMES[kind]}. Nothing was changed.`,
          );
    }
  }

  /**
   * Closes a claimed time exit. An exit client id used before is looked up first: a fill completes the
   * exit, an order that ended without executing gets a new id, one the venue does not know is sent again
   * under the same id. Closed only when the venue confirms; any failure opens the exit again, later.
   */
  private async closeForExit(claimed: ProtectionRow): Promise<void> {
    let row = claimed;
    const where = await this.d.account(row.userId, row.account);
    let attempt = row.exitAttempts;
    let cid = row.exitClientId ?? `pp-${row.id}-exit-${attempt + 1}`;
    try {
      if (row.exitClientId !== null) {
        const earlier = await where.adapter.queryOrder(where.account, row.exitClientId, row.symbol);
        if (earlier !== null && Number(earlier.executedQty) > 0) {
          await this.exitDone(where, row, `closed ${earlier.executedQty} at ${earlier.avgPrice}`);
          return;
        }
        if (earlier !== null) {
          attempt += 1;
          cid = `pp-${row.id}-exit-${attempt + 1}`;
        }
      }
      row = (await this.d.repo.update(row.id, row.version, { exitClientId: cid })) ?? fail();
      const fill = await this.d.reduce(row.userId, row.account, {
        symbol: row.symbol,
        opened: row.side,
        quantity: Number.MAX_SAFE_INTEGER,
        clientOrderId: cid,
      });
      await this.exitDone(
        where,
        row,
        fill === null ? 'nothing was left open' : `closed ${fill.quantity} at ${fill.price}`,
      );
    } catch (err) {
      const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'the close failed';
      const tries = row.exitAttempts + 1;
      const wait = EXIT_BACKOFF_MS[Math.min(tries - 1, EXIT_BACKOFF_MS.length - 1)] ?? 60_000;
      const latest = (await this.d.repo.get(row)) ?? row;
      await this.d.repo.update(latest.id, latest.version, {
        exitState: 'open',
        exitAttempts: tries,
        exitNextAt: new Date(this.now() + wait),
        exitNote: `not closed yet: ${detail}`,
      });
      this.d.log.warn(
        { userId: row.userId, symbol: row.symbol, tries, detail },
        'time exit failed; it will try again',
      );
      if (tries === EXIT_TELL_AFTER) {
        this.d.notify(row.userId, {
          symbol: pairOf(row.symbol),
          event: 'exit_failing',
          leg: 'exit',
          text: `The exit of ${pairOf(row.symbol)} failed ${tries} times (${detail}); it keeps trying.`,
        });
      }
    }
  }

  private async exitDone(where: ResolvedAccount, row: ProtectionRow, how: string): Promise<void> {
    const latest = (await this.d.repo.get(row)) ?? row;
    await this.d.repo.update(latest.id, latest.version, { exitState: 'closed', exitNote: how });
    const why = latest.exitNote?.startsWith('The exchange refused') ? latest.exitNote : 'Time exit';
    this.d.notify(row.userId, {
      symbol: pairOf(row.symbol),
      event: 'exited',
      leg: 'exit',
      text: `${why.replace(/: the position is being closed at market\.$/, '')}: ${pairOf(row.symbol)} ${how}.`,
    });
    await this.reconcilePosition(row.userId, row.account, row.symbol).catch((err: unknown) =>
      this.d.log.warn({ err, symbol: row.symbol }, 'protection not reconciled after its exit'),
    );
  }

  /** The open position on `symbol`, read fresh from the venue (no cached answer: legs follow it). */
  private async positionOf(where: ResolvedAccount, symbol: string): Promise<PositionRisk | null> {
    const rows = await where.adapter.positionRisk(where.account, true);
    return rows.find((p) => p.symbol === symbol && Number(p.positionAmt) !== 0) ?? null;
  }

  private async tickOf(where: ResolvedAccount, symbol: string): Promise<Decimal | null> {
    const adapter = where.adapter as ExchangeAdapter & {
      filters?(s: string): Promise<{ tickSize: Decimal }>;
    };
    // The live venue's exchangeInfo; the paper exchange keeps Binance's published filters.
    if (adapter.filters === undefined) return filtersFor(symbol)?.tickSize ?? null;
    return (await adapter.filters(symbol).catch(() => null))?.tickSize ?? null;
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

const sameNumber = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : Number(a) === Number(b);

/** Whether a row already rests exactly these legs (same side, prices, callback), all confirmed. */
function sameLegs(
  row: ProtectionRow,
  plan: {
    side: 'long' | 'short';
    stopLossPrice: string | null;
    takeProfitPrice: string | null;
    trailingPct: string | null;
  },
): boolean {
  if (row.side !== plan.side) return false;
  if (!sameNumber(row.stopLossPrice, plan.stopLossPrice)) return false;
  if (!sameNumber(row.takeProfitPrice, plan.takeProfitPrice)) return false;
  if (!sameNumber(row.trailingPct, plan.trailingPct)) return false;
  const wanted = plannedLegs({ symbol: row.symbol, ...plan });
  return LEG_KINDS.every((k) =>
    wanted.includes(k) ? row.legs[k]?.state === 'resting' : !liveLeg(row.legs[k]),
  );
}

const accountKey = (userId: string, account: string) => `${userId}\u0000${account}`;
const CHANGED = 'The protection changed while it was being updated. Try again.';
const noPosition = (symbol: string) => `No open position on ${pairOf(symbol)}.`;

function fail(): never {
  throw appError('CONFLICT', CHANGED);
}

/** A leg as the venue's answer leaves it. */
function legFrom(leg: StoredLeg, order: ConditionalOrder): StoredLeg {
  const state = RESTING_CONDITIONALS.has(order.status)
    ? 'resting'
    : FIRED_CONDITIONALS.has(order.status)
      ? 'triggered'
      : 'refused';
  const { note: _note, ...rest } = leg;
  return state === 'refused'
    ? { ...rest, algoId: order.algoId, state, note: order.status.toLowerCase() }
    : { ...rest, algoId: order.algoId, state };
}
