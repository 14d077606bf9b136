import { pairOf, type OrderResponse } from '../../../../src/contracts/trading';
import type { ResolvedAccount } from '../accounts';
import { conflict, type LegDeps } from './leg-orders';
import type { ProtectionRow } from './protection.repo';

/**
 * Waits before each new try of an exit that failed; the last repeats for as long as it takes. The rules'
 * exits wait the same (they take it from here).
 */
export const EXIT_BACKOFF_MS = [1_000, 2_000, 5_000, 15_000, 30_000, 60_000] as const;
/** After this many failed tries the user is told (and it keeps trying). */
export const EXIT_TELL_AFTER = 3;
/** A time exit left `closing` this long was being closed by a process that died: it is taken up again. */
export const EXIT_CLOSING_STALE_MS = 30_000;

export interface TimeExitDeps extends LegDeps {
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
  now(): number;
  /** Reads the position's legs against the venue once its exit closed it. */
  reconcile(userId: string, account: string, symbol: string): Promise<void>;
}

/** The time exit, the server's own: `open → closing → closed`, closed only when the venue confirms. */
export class TimeExits {
  constructor(private readonly d: TimeExitDeps) {}

  /**
   * Closes a claimed time exit. An exit client id used before is looked up first: a fill completes the
   * exit, an order that ended without executing gets a new id, one the venue does not know is sent again
   * under the same id. Closed only when the venue confirms; any failure opens the exit again, later.
   */
  async close(claimed: ProtectionRow): Promise<void> {
    let row = claimed;
    const where = await this.d.account(row.userId, row.account);
    let attempt = row.exitAttempts;
    let cid = row.exitClientId ?? `pp-${row.id}-exit-${attempt + 1}`;
    try {
      if (row.exitClientId !== null) {
        const earlier = await where.adapter.queryOrder(where.account, row.exitClientId, row.symbol);
        if (earlier !== null && Number(earlier.executedQty) > 0) {
          await this.done(where, row, `closed ${earlier.executedQty} at ${earlier.avgPrice}`);
          return;
        }
        if (earlier !== null) {
          attempt += 1;
          cid = `pp-${row.id}-exit-${attempt + 1}`;
        }
      }
      row = (await this.d.repo.update(row.id, row.version, { exitClientId: cid })) ?? conflict();
      const fill = await this.d.reduce(row.userId, row.account, {
        symbol: row.symbol,
        opened: row.side,
        quantity: Number.MAX_SAFE_INTEGER,
        clientOrderId: cid,
      });
      await this.done(
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
        exitNextAt: new Date(this.d.now() + wait),
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

  private async done(where: ResolvedAccount, row: ProtectionRow, how: string): Promise<void> {
    const latest = (await this.d.repo.get(row)) ?? row;
    await this.d.repo.update(latest.id, latest.version, { exitState: 'closed', exitNote: how });
    const why = latest.exitNote?.startsWith('The exchange refused') ? latest.exitNote : 'Time exit';
    this.d.notify(row.userId, {
      symbol: pairOf(row.symbol),
      event: 'exited',
      leg: 'exit',
      text: `${why.replace(/: the position is being closed at market\.$/, '')}: ${pairOf(row.symbol)} ${how}.`,
    });
    await this.d
      .reconcile(row.userId, row.account, row.symbol)
      .catch((err: unknown) =>
        this.d.log.warn({ err, symbol: row.symbol }, 'protection not reconciled after its exit'),
      );
  }
}
