import type { Clock } from '../market/clock';
import type { ResolvedAccount } from './accounts';
import type { OrderResult } from './exchange';
import type { TradeLog } from './trade-log';

export interface LateFeesOptions {
  clock: Clock;
  /** When to ask again after the fill was recorded, each wait after the one before. */
  delaysMs: readonly number[];
  trades: TradeLog;
  onError: (err: unknown, userId: string, orderId: string) => void;
}

/**
 * The fee and realised PnL of fills recorded with them unknown (the venue's trades could not be read
 * when the order was answered): asked of the venue again (its user-data stream's report, else its
 * trades) a few times, and written into the trade history once it tells them. Asks stop at `stop()`.
 */
export class LateFees {
  private readonly timers = new Set<() => void>();
  private stopped = false;

  constructor(private readonly opts: LateFeesOptions) {}

  /** Follows one fill of `where` until its figures are known or every delay has passed. */
  follow(userId: string, where: ResolvedAccount, fill: OrderResult): void {
    const ask = where.adapter.orderFees?.bind(where.adapter);
    if (ask === undefined || this.stopped) return;
    const attempt = (i: number) => {
      const delay = this.opts.delaysMs[i];
      if (delay === undefined || this.stopped) return;
      const cancel = this.opts.clock.setTimer(() => {
        this.timers.delete(cancel);
        void ask(where.account, fill)
          .catch(() => null)
          .then(async (fees) => {
            if (fees === null) return attempt(i + 1);
            await this.opts.trades.fillFees(userId, where.name, fill.orderId, {
              fee: Number(fees.commission),
              realizedPnl: Number(fees.realizedPnl),
            });
          })
          .catch((err: unknown) => this.opts.onError(err, userId, fill.orderId));
      }, delay);
      this.timers.add(cancel);
    };
    attempt(0);
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }
}
