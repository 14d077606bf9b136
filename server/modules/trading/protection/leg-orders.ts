import type Decimal from 'decimal.js';
import { pairOf, type PositionsMessage } from '../../../../src/contracts/trading';
import { appError } from '../../../plugins/errors';
import type { ResolvedAccount } from '../accounts';
import {
  FIRED_CONDITIONALS,
  RESTING_CONDITIONALS,
  type ConditionalOrder,
  type ExchangeAdapter,
  type PositionRisk,
} from '../exchange';
import { ExchangeError, OrderOutcomeUnknown } from '../exchange-error';
import { filtersFor } from '../paper/filters';
import {
  LEG_KINDS,
  LEG_NAMES,
  LEG_TYPES,
  legRequest,
  liveLeg,
  restingLeg,
  type LegKind,
  type StoredLeg,
  type StoredLegs,
} from './legs';
import type { ProtectionRepo, ProtectionRow } from './protection.repo';

/** A venue that holds conditional orders: the four calls, present. */
export type ConditionalVenue = Required<
  Pick<ExchangeAdapter, 'placeConditional' | 'queryConditional' | 'cancelConditional' | 'openConditionals'>
> &
  ExchangeAdapter;

export const holdsLegs = (adapter: ExchangeAdapter): adapter is ConditionalVenue =>
  adapter.placeConditional !== undefined &&
  adapter.queryConditional !== undefined &&
  adapter.cancelConditional !== undefined &&
  adapter.openConditionals !== undefined;

export type Notice = Extract<PositionsMessage, { type: 'protection' }>;
export const WIRE_LEG: Record<LegKind, Notice['leg']> = {
  sl: 'stop_loss',
  tp: 'take_profit',
  trail: 'trailing',
};

/** What the protection's units share: its rows, the user's notices and the log. */
export interface LegDeps {
  repo: ProtectionRepo;
  /** Tells the user (the positions socket: terminal and toast; the bus: Telegram and push). */
  notify(userId: string, notice: Omit<Notice, 'type' | 'time'>): void;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

const CHANGED = 'The protection changed while it was being updated. Try again.';

/** A write lost to a concurrent change of the same row: the caller tries again. */
export function conflict(): never {
  throw appError('CONFLICT', CHANGED);
}

/**
 * The protection's calls to the venue: legs placed and confirmed (an unclear answer looked up before
 * anything is placed again), cancelled, and ended with the position; the position and tick read fresh.
 */
export class LegOrders {
  constructor(private readonly d: LegDeps) {}

  /** Places each leg (in parallel), confirming each: resting, refused, or placing while still unknown. */
  async placeLegs(where: ResolvedAccount, row: ProtectionRow, legs: StoredLegs): Promise<StoredLegs> {
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

  async placeLeg(
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
        const found = await venue
          .queryConditional(where.account, row.symbol, leg.cid, LEG_TYPES[kind])
          .catch(() => undefined);
        if (found === undefined) return { ...leg, state: 'placing', note: 'not confirmed yet' };
        if (found !== null) return legFrom(leg, found);
      }
    }
    return { ...leg, state: 'placing', note: 'not confirmed yet' };
  }

  /** Cancels every leg still meant to rest; throws (changing nothing) when the venue does not answer. */
  async cancelLegs(where: ResolvedAccount, row: ProtectionRow): Promise<void> {
    for (const kind of LEG_KINDS) await this.cancelLeg(where, row.symbol, kind, row.legs[kind]);
  }

  async cancelLeg(
    where: ResolvedAccount,
    symbol: string,
    kind: LegKind,
    leg: StoredLeg | undefined,
  ): Promise<void> {
    if (!liveLeg(leg) || !holdsLegs(where.adapter)) return;
    try {
      await where.adapter.cancelConditional(where.account, symbol, leg.cid, LEG_TYPES[kind]);
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

  /** The position is gone: legs that fired are told of, the rest cancelled, the row dropped. */
  async endProtection(
    where: ResolvedAccount,
    row: ProtectionRow,
    resting: Map<string, ConditionalOrder>,
  ): Promise<void> {
    const venue = where.adapter as ConditionalVenue;
    for (const kind of LEG_KINDS) {
      const leg = row.legs[kind];
      if (!liveLeg(leg)) continue;
      if (restingLeg(resting, kind, leg) !== undefined) {
        await venue.cancelConditional(where.account, row.symbol, leg.cid, LEG_TYPES[kind]);
        continue;
      }
      const found = await venue.queryConditional(where.account, row.symbol, leg.cid, LEG_TYPES[kind]);
      if (found !== null && FIRED_CONDITIONALS.has(found.status)) {
        const text = `The ${LEG_NAMES[kind]} on ${pairOf(row.symbol)} fired${found.triggerPrice === null ? '' : ` at ${found.triggerPrice}`}: the position is closed.`;
        this.d.notify(row.userId, { symbol: pairOf(row.symbol), event: 'fired', leg: WIRE_LEG[kind], text });
      }
    }
    if (!(await this.d.repo.remove(row.id, row.version))) {
      this.d.log.info({ symbol: row.symbol }, 'protection changed while it ended');
    }
  }

  /** The open position on `symbol`, read fresh from the venue (no cached answer: legs follow it). */
  async positionOf(where: ResolvedAccount, symbol: string): Promise<PositionRisk | null> {
    const rows = await where.adapter.positionRisk(where.account, true);
    return rows.find((p) => p.symbol === symbol && Number(p.positionAmt) !== 0) ?? null;
  }

  async tickOf(where: ResolvedAccount, symbol: string): Promise<Decimal | null> {
    const adapter = where.adapter as ExchangeAdapter & {
      filters?(s: string): Promise<{ tickSize: Decimal }>;
    };
    // The live venue's exchangeInfo; the paper exchange keeps Binance's published filters.
    if (adapter.filters === undefined) return filtersFor(symbol)?.tickSize ?? null;
    return (await adapter.filters(symbol).catch(() => null))?.tickSize ?? null;
  }
}

/** A leg as the venue's answer leaves it. */
export function legFrom(leg: StoredLeg, order: ConditionalOrder): StoredLeg {
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
