import Decimal from 'decimal.js';
import { pairOf } from '../../../../src/contracts/trading';
import type { ResolvedAccount } from '../accounts';
import { FIRED_CONDITIONALS, type ConditionalOrder } from '../exchange';
import {
  LEG_KINDS,
  LEG_NAMES,
  LEG_TYPES,
  legClientId,
  liveLeg,
  restingByLeg,
  restingLeg,
  type LegKind,
  type StoredLeg,
  type StoredLegs,
} from './legs';
import { conflict, holdsLegs, legFrom, WIRE_LEG, type LegDeps, type LegOrders } from './leg-orders';
import type { ProtectionRow } from './protection.repo';

export interface ReconcileDeps extends LegDeps {
  /** The account an earlier order went to, by its name (`paper` or a key id). */
  account(userId: string, name: string): Promise<ResolvedAccount>;
  legs: LegOrders;
  /** What follows a leg placed again: a refusal closes the position, an unconfirmed leg is looked up. */
  afterPlacing(where: ResolvedAccount, row: ProtectionRow): Promise<string | null>;
}

/** Keeps what rests on the venue matching what should, one position at a time. */
export class Reconciler {
  constructor(private readonly d: ReconcileDeps) {}

  /**
   * One position: the legs that should rest are compared with the venue's open conditional orders. A
   * position that is gone (or turned) ends its protection: the legs left are cancelled (one fired: the
   * others must not open a new position) and the row dropped. A leg that vanished while the position is
   * open is placed again under a new client id, and the user is told; a trailing stop follows the size.
   */
  async position(userId: string, accountName: string, symbol: string): Promise<void> {
    let row = await this.d.repo.get({ userId, account: accountName, symbol });
    if (row === null) return;
    const where = await this.d.account(userId, accountName);
    if (!holdsLegs(where.adapter)) return;
    const venue = where.adapter;
    const [position, open] = await Promise.all([
      this.d.legs.positionOf(where, symbol),
      venue.openConditionals(where.account, symbol),
    ]);
    const resting = restingByLeg(open);
    const sideNow = position === null ? null : Number(position.positionAmt) > 0 ? 'long' : 'short';
    if (sideNow !== row.side) {
      await this.d.legs.endProtection(where, row, resting);
      return;
    }
    const size = new Decimal(position?.positionAmt ?? 0).abs().toFixed();
    // What became of each leg that no longer rests: a stop or target that fired closes the position
    // (whatever positionRisk said a moment ago), so nothing is placed again and the others end.
    const gone = new Map<LegKind, ConditionalOrder | null>();
    for (const kind of LEG_KINDS) {
      const leg = row.legs[kind];
      if (liveLeg(leg) && restingLeg(resting, kind, leg) === undefined) {
        gone.set(kind, await venue.queryConditional(where.account, symbol, leg.cid, LEG_TYPES[kind]));
      }
    }
    const fired = (kind: LegKind) => {
      const found = gone.get(kind);
      return found !== undefined && found !== null && FIRED_CONDITIONALS.has(found.status);
    };
    if (fired('sl') || fired('tp')) {
      await this.d.legs.endProtection(where, row, resting);
      return;
    }
    const legs: StoredLegs = { ...row.legs };
    let changed = false;
    for (const kind of LEG_KINDS) {
      const leg = legs[kind];
      if (!liveLeg(leg)) continue;
      const seen = restingLeg(resting, kind, leg);
      if (seen !== undefined) {
        if (kind === 'trail' && leg.quantity !== size) {
          // The position grew or shrank: the trailing stop is placed again for its new size.
          await venue.cancelConditional(where.account, symbol, leg.cid, LEG_TYPES[kind]);
          const next: StoredLeg = {
            ...leg,
            cid: legClientId(row.id, kind, leg.gen + 1),
            gen: leg.gen + 1,
            quantity: size,
            state: 'placing',
            algoId: null,
          };
          legs[kind] = await this.d.legs.placeLeg(where, row, kind, next);
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
        legs[kind] = await this.d.legs.placeLeg(where, row, kind, leg);
        changed = true;
        continue;
      }
      // Cancelled on the venue's site, expired, or refused after resting: it goes back, once the
      // position is seen open again right now (not as it was when this round began).
      const now = await this.d.legs.positionOf(where, symbol);
      if (now === null || (Number(now.positionAmt) > 0 ? 'long' : 'short') !== row.side) {
        await this.d.legs.endProtection(where, row, resting);
        return;
      }
      const next: StoredLeg = {
        cid: legClientId(row.id, kind, leg.gen + 1),
        gen: leg.gen + 1,
        algoId: null,
        state: 'missing',
        quantity: kind === 'trail' ? size : null,
      };
      legs[kind] = await this.d.legs.placeLeg(where, row, kind, next);
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
    row = (await this.d.repo.update(row.id, row.version, { legs })) ?? conflict();
    await this.d.afterPlacing(where, row);
  }
}
