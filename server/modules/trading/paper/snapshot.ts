import Decimal from 'decimal.js';
import { z } from 'zod';
import type { PaperAccountState, PaperPosition } from './account';

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

/** Bumped when the shape changes: a snapshot of another version is ignored and the ledger replayed. */
const VERSION = 1;

const decimalString = z.string().regex(/^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i);

const snapshotSchema = z.object({
  v: z.literal(VERSION),
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
  };
}
