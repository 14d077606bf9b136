import Decimal from 'decimal.js';
import {
  protectionPrices,
  protectionProblem,
  type ProtectionInput,
} from '../../../../src/contracts/protection';
import { RequestValidationError } from '../../../plugins/errors';
import { LEG_KINDS, liveLeg, plannedLegs } from './legs';
import type { ProtectionRow } from './protection.repo';

/** What a position's protection asks to rest: its side, the prices on the tick and the trailing callback. */
export interface LegPlan {
  side: 'long' | 'short';
  stopLossPrice: string | null;
  takeProfitPrice: string | null;
  trailingPct: string | null;
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
 * The stop and target prices of `input` from the entry, on the symbol's tick; a stop or target that
 * would fire at once at the venue's mark is a 422 naming the field.
 */
export function pricesOnTick(
  input: ProtectionInput,
  side: 'long' | 'short',
  entry: number,
  mark: number,
  tick: Decimal | null,
): { stopLoss: number | null; takeProfit: number | null } {
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
  return prices;
}

export function planOf(
  side: 'long' | 'short',
  prices: { stopLoss: number | null; takeProfit: number | null },
  input: ProtectionInput,
): LegPlan {
  return {
    side,
    stopLossPrice: prices.stopLoss === null ? null : String(prices.stopLoss),
    takeProfitPrice: prices.takeProfit === null ? null : String(prices.takeProfit),
    trailingPct: input.trailing_pct === undefined ? null : String(input.trailing_pct),
  };
}

const sameNumber = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : Number(a) === Number(b);

/** Whether a row already rests exactly these legs (same side, prices, callback), all confirmed. */
export function sameLegs(row: ProtectionRow, plan: LegPlan): boolean {
  if (row.side !== plan.side) return false;
  if (!sameNumber(row.stopLossPrice, plan.stopLossPrice)) return false;
  if (!sameNumber(row.takeProfitPrice, plan.takeProfitPrice)) return false;
  if (!sameNumber(row.trailingPct, plan.trailingPct)) return false;
  const wanted = plannedLegs({ symbol: row.symbol, ...plan });
  return LEG_KINDS.every((k) =>
    wanted.includes(k) ? row.legs[k]?.state === 'resting' : !liveLeg(row.legs[k]),
  );
}
