import Decimal from 'decimal.js';
import { z } from 'zod';
import type { PaperAccountState, PaperPosition } from './account';
import { EMPTY_BOOK, type ConditionalBook, type PaperConditional } from './conditionals';
import { EMPTY_LIMITS, type EndedLimit, type LimitBook, type PaperLimit } from './limits';

/**
 * A paper account's state as JSON, for `paper_snapshots`. Decimals are strings written with `valueOf()`
 * (unlike `toString()` it keeps the sign of a negative zero), so that reading one back gives the very
 * state that was written; maps are arrays of entries, so their order survives too.
 */

/**
 * A snapshot every 100 ledger rows: a load then replays at most 99 rows (well under a millisecond of
 * folding, one small indexed read), while the write costs one extra insert per 100 orders.
 */
export const SNAPSHOT_EVERY = 100;
/** Older snapshots are deleted; a few are kept so that a bad one can be stepped over by hand. */
export const SNAPSHOTS_KEPT = 3;

/**
 * Bumped when the shape changes: a snapshot of a version this code cannot read is ignored and the ledger
 * replayed. Version 2 added conditional orders, version 3 limit orders; an older snapshot is read as
 * having none (the code that wrote it could not fold a ledger that had any).
 */
const VERSION = 3;

const decimalString = z.string().regex(/^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i);

const conditionalSchema = z.object({
  algoId: z.string(),
  clientAlgoId: z.string(),
  symbol: z.string(),
  side: z.enum(['BUY', 'SELL']),
  type: z.enum(['STOP_MARKET', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET']),
  status: z.enum(['NEW', 'TRIGGERING', 'TRIGGERED', 'FINISHED', 'CANCELED', 'EXPIRED', 'REJECTED']),
  triggerPrice: decimalString.nullable(),
  quantity: decimalString.nullable(),
  closePosition: z.boolean(),
  callbackRate: decimalString.nullable(),
  activatePrice: decimalString.nullable(),
  actualOrderId: z.string().nullable(),
  updateTime: z.number(),
  extreme: decimalString.nullable(),
  reason: z.string().nullable(),
});

const limitSchema = z.object({
  orderId: z.string(),
  clientOrderId: z.string(),
  symbol: z.string(),
  side: z.enum(['BUY', 'SELL']),
  price: decimalString,
  quantity: decimalString,
  timeInForce: z.enum(['GTC', 'GTX']),
  reduceOnly: z.boolean(),
  reserved: decimalString,
  time: z.number(),
  updateTime: z.number(),
});
const endedLimitSchema = limitSchema.extend({
  status: z.enum(['FILLED', 'CANCELED', 'EXPIRED']),
  reason: z.string().nullable(),
});

const snapshotSchema = z.object({
  v: z.union([z.literal(1), z.literal(2), z.literal(VERSION)]),
  cash: decimalString,
  positions: z.array(
    z.object({
      symbol: z.string(),
      size: decimalString,
      entryPrice: decimalString,
      isolatedWallet: decimalString,
      leverage: z.number(),
    }),
  ),
  leverage: z.array(z.tuple([z.string(), z.number()])),
  /** Version 2 on: the resting conditional orders, then the latest that ended. */
  conditionals: z.array(conditionalSchema).optional(),
  endedConditionals: z.array(conditionalSchema).optional(),
  /** Version 3 on: the resting limit orders, then the latest that ended. */
  limits: z.array(limitSchema).optional(),
  endedLimits: z.array(endedLimitSchema).optional(),
});

export type SnapshotState = z.infer<typeof snapshotSchema>;

export function toSnapshot(state: PaperAccountState): SnapshotState {
  return {
    v: VERSION,
    cash: state.cash.valueOf(),
    positions: [...state.positions.values()].map((p) => ({
      symbol: p.symbol,
      size: p.size.valueOf(),
      entryPrice: p.entryPrice.valueOf(),
      isolatedWallet: p.isolatedWallet.valueOf(),
      leverage: p.leverage,
    })),
    leverage: [...state.leverage.entries()],
    conditionals: [...state.conditionals.resting.values()].map(copy),
    endedConditionals: state.conditionals.ended.map(copy),
    limits: [...state.limits.resting.values()].map(copyLimit),
    endedLimits: state.limits.ended.map((o) => ({ ...copyLimit(o), status: o.status, reason: o.reason })),
  };
}

function copyLimit(o: PaperLimit): PaperLimit {
  return {
    orderId: o.orderId,
    clientOrderId: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    timeInForce: o.timeInForce,
    reduceOnly: o.reduceOnly,
    reserved: o.reserved,
    time: o.time,
    updateTime: o.updateTime,
  };
}

function limitsOf(s: SnapshotState): LimitBook {
  if (s.v !== VERSION) return EMPTY_LIMITS;
  return {
    resting: new Map((s.limits ?? []).map((o) => [o.orderId, copyLimit(o)])),
    ended: (s.endedLimits ?? []).map((o): EndedLimit => ({
      ...copyLimit(o),
      status: o.status,
      reason: o.reason,
    })),
  };
}

/** A field-by-field copy, so that the snapshot names exactly the schema's fields. */
function copy(c: PaperConditional): PaperConditional {
  return {
    algoId: c.algoId,
    clientAlgoId: c.clientAlgoId,
    symbol: c.symbol,
    side: c.side,
    type: c.type,
    status: c.status,
    triggerPrice: c.triggerPrice,
    quantity: c.quantity,
    closePosition: c.closePosition,
    callbackRate: c.callbackRate,
    activatePrice: c.activatePrice,
    actualOrderId: c.actualOrderId,
    updateTime: c.updateTime,
    extreme: c.extreme,
    reason: c.reason,
  };
}

function bookOf(s: SnapshotState): ConditionalBook {
  if (s.v === 1) return EMPTY_BOOK;
  return {
    resting: new Map((s.conditionals ?? []).map((c) => [c.algoId, copy(c)])),
    ended: (s.endedConditionals ?? []).map(copy),
  };
}

/** The state a snapshot holds, or null when it is not one this version can read. */
export function fromSnapshot(json: unknown): PaperAccountState | null {
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) return null;
  const s = parsed.data;
  return {
    cash: new Decimal(s.cash),
    positions: new Map(
      s.positions.map((p): [string, PaperPosition] => [
        p.symbol,
        {
          symbol: p.symbol,
          size: new Decimal(p.size),
          entryPrice: new Decimal(p.entryPrice),
          isolatedWallet: new Decimal(p.isolatedWallet),
          leverage: p.leverage,
        },
      ]),
    ),
    leverage: new Map(s.leverage),
    conditionals: bookOf(s),
    limits: limitsOf(s),
  };
}
