import type { LegState, PositionProtection } from '../../../../src/contracts/protection';
import type { ConditionalOrder, ConditionalOrderRequest, ConditionalType } from '../exchange';

/** The three legs that rest on the venue. */
export const LEG_KINDS = ['sl', 'tp', 'trail'] as const;
export type LegKind = (typeof LEG_KINDS)[number];

/** One leg as the protection row keeps it. */
export interface StoredLeg {
  /** Its client id on the venue: derived from the row, the leg and its generation, so a retry is safe. */
  cid: string;
  /** The venue's id once it confirmed the leg. */
  algoId: string | null;
  state: LegState;
  /** 1 for the first placement, +1 each time it is placed again (vanished, resized, replaced). */
  gen: number;
  /** A trailing stop's quantity (reduce-only); null for the whole-position legs. */
  quantity: string | null;
  /** Why it is in its state, when the venue said (a refusal's message). */
  note?: string;
}
export type StoredLegs = Partial<Record<LegKind, StoredLeg>>;

/** The conditional order type of each leg (what a venue that keeps legs in slots finds one by). */
export const LEG_TYPES: Record<LegKind, ConditionalType> = {
  sl: 'STOP_MARKET',
  tp: 'TAKE_PROFIT_MARKET',
  trail: 'TRAILING_STOP_MARKET',
};

export const LEG_NAMES: Record<LegKind, string> = {
  sl: 'stop loss',
  tp: 'take profit',
  trail: 'trailing stop',
};

/** `pp-<row>-<leg>-<generation>`: within Binance's 36 characters and its client-id pattern. */
export const legClientId = (protectionId: number, kind: LegKind, gen: number): string =>
  `pp-${protectionId}-${kind}-${gen}`;

/** What a row asks of a leg: its trigger price (stop, target) or callback (trailing). */
export interface LegPlan {
  symbol: string;
  side: 'long' | 'short';
  stopLossPrice: string | null;
  takeProfitPrice: string | null;
  trailingPct: string | null;
}

/** The legs a plan has. */
export const plannedLegs = (plan: LegPlan): LegKind[] =>
  LEG_KINDS.filter((k) =>
    k === 'sl'
      ? plan.stopLossPrice !== null
      : k === 'tp'
        ? plan.takeProfitPrice !== null
        : plan.trailingPct !== null,
  );

/**
 * The conditional order for one leg: SELL protects a long. Stop and target close the whole position
 * (Binance's closePosition, which follows its size); the trailing stop is reduce-only for `quantity`.
 */
export function legRequest(
  plan: LegPlan,
  kind: LegKind,
  cid: string,
  quantity: string,
): ConditionalOrderRequest {
  const base = {
    symbol: plan.symbol,
    side: plan.side === 'long' ? ('SELL' as const) : ('BUY' as const),
    type: LEG_TYPES[kind],
    clientAlgoId: cid,
  };
  if (kind === 'trail') return { ...base, quantity, callbackRate: String(plan.trailingPct) };
  const trigger = kind === 'sl' ? plan.stopLossPrice : plan.takeProfitPrice;
  return { ...base, triggerPrice: String(trigger), closePosition: true };
}

/** A leg still meant to rest (not fired, not refused). */
export const liveLeg = (leg: StoredLeg | undefined): leg is StoredLeg =>
  leg !== undefined && (leg.state === 'placing' || leg.state === 'resting' || leg.state === 'missing');

/** The row as the positions pane shows it. */
export function wireProtection(row: {
  stopLossPrice: string | null;
  takeProfitPrice: string | null;
  trailingPct: string | null;
  legs: StoredLegs;
  exitAt: Date | null;
  exitState: 'open' | 'closing' | 'closed' | null;
}): PositionProtection {
  const leg = (kind: LegKind, price: string | null) => {
    const stored = row.legs[kind];
    if (price === null || stored === undefined) return null;
    return { price: Number(price), on: 'exchange' as const, state: stored.state };
  };
  const trail = row.legs.trail;
  return {
    stop_loss: leg('sl', row.stopLossPrice),
    take_profit: leg('tp', row.takeProfitPrice),
    trailing:
      row.trailingPct === null || trail === undefined
        ? null
        : { callback_pct: Number(row.trailingPct), on: 'exchange', state: trail.state },
    exit_at: row.exitAt === null || row.exitState === 'closed' ? null : row.exitAt.toISOString(),
  };
}

/**
 * The resting orders by what finds each leg: its client id, or, for a venue that keeps a position's legs
 * in one slot per kind without a client id (Bybit's trading-stop), `#<type>`.
 */
export function restingByLeg(open: readonly ConditionalOrder[]): Map<string, ConditionalOrder> {
  return new Map(open.map((o) => [o.clientAlgoId === '' ? `#${o.type}` : o.clientAlgoId, o]));
}

/** The leg's resting order, by its client id or its slot. */
export function restingLeg(
  resting: ReadonlyMap<string, ConditionalOrder>,
  kind: LegKind,
  leg: StoredLeg,
): ConditionalOrder | undefined {
  return resting.get(leg.cid) ?? resting.get(`#${LEG_TYPES[kind]}`);
}
