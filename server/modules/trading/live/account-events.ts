import type { BinanceClient, BinanceCredentials } from '../../exchanges/binance-client';
import type { ExchangeEvent, OrderResult } from '../exchange';
import { UserDataStream, type UserStreamOptions } from './user-stream';

export interface AccountEventsOptions {
  client: BinanceClient;
  credentials(account: string): Promise<BinanceCredentials>;
  /** The user-data stream (`{listenKey}` in the address); without it, accounts are read over REST only. */
  userStream?: Pick<UserStreamOptions, 'urlTemplate' | 'keepAliveMs' | 'backoffMs' | 'onProblem'>;
  now: () => number;
  /** Something changed on the account (an event, or a reconnect that may have missed some). */
  changed(account: string): void;
  /** Each event the account's user-data stream sent, as it came (never the adapter's own notices). */
  streamed?(account: string, event: ExchangeEvent): void;
}

/**
 * What happens on the live accounts, to whoever listens: fills placed through the adapter, and while
 * someone watches an account, everything its user-data stream tells.
 */
export class AccountEvents {
  private readonly handlers = new Map<string, Set<(event: ExchangeEvent) => void>>();
  private readonly allHandlers = new Set<(account: string, event: ExchangeEvent) => void>();
  private readonly streams = new Map<string, { stream: UserDataStream; watchers: number }>();

  constructor(private readonly opts: AccountEventsOptions) {}

  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void {
    let set = this.handlers.get(account);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(account, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Every account's fills placed through the adapter, as ORDER_TRADE_UPDATE events. */
  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    this.allHandlers.add(handler);
    return () => this.allHandlers.delete(handler);
  }

  /**
   * Keeps the account's user-data stream open while someone watches it: every ACCOUNT_UPDATE,
   * ORDER_TRADE_UPDATE and ALGO_UPDATE (read into our shape) reaches the subscribers. Returns the disposer; the stream closes and its listen
   * key is deleted when the last watcher leaves.
   */
  watch(account: string): () => void {
    const config = this.opts.userStream;
    if (config === undefined) return () => undefined;
    let entry = this.streams.get(account);
    if (entry === undefined) {
      const stream = new UserDataStream({
        ...config,
        client: this.opts.client,
        credentials: () => this.opts.credentials(account),
        onEvent: (event) => {
          this.opts.streamed?.(account, event);
          this.opts.changed(account);
          this.dispatch(account, event);
        },
        // What happened while the stream was down is read again: subscribers take a fresh snapshot.
        onConnected: () => {
          this.opts.changed(account);
          this.dispatch(account, {
            e: 'ACCOUNT_UPDATE',
            E: this.opts.now(),
            T: this.opts.now(),
            a: { m: 'ORDER', B: [], P: [] },
          });
        },
      });
      entry = { stream, watchers: 0 };
      this.streams.set(account, entry);
      stream.start();
    }
    entry.watchers += 1;
    const held = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.watchers -= 1;
      if (held.watchers === 0 && this.streams.get(account) === held) {
        this.streams.delete(account);
        void held.stream.stop();
      }
    };
  }

  /** Accounts whose user-data stream is connected now. */
  streaming(): string[] {
    return [...this.streams].filter(([, e]) => e.stream.connected).map(([account]) => account);
  }

  /** Closes every user-data stream (shutdown). */
  async stopStreams(): Promise<void> {
    const all = [...this.streams.values()];
    this.streams.clear();
    await Promise.all(all.map((e) => e.stream.stop()));
  }

  /** Tells the subscribers of a fill placed through the adapter. */
  filled(account: string, r: OrderResult): void {
    this.dispatch(account, {
      e: 'ORDER_TRADE_UPDATE',
      E: this.opts.now(),
      T: r.updateTime,
      o: {
        s: r.symbol,
        c: r.clientOrderId,
        S: r.side,
        o: 'MARKET',
        q: r.executedQty,
        ap: r.avgPrice,
        x: 'TRADE',
        X: 'FILLED',
        i: r.orderId,
        l: r.executedQty,
        z: r.executedQty,
        L: r.avgPrice,
        n: r.commission,
        N: 'USDT',
        rp: r.realizedPnl,
        R: r.reduceOnly,
      },
    });
  }

  private dispatch(account: string, event: ExchangeEvent): void {
    for (const h of this.handlers.get(account) ?? []) h(event);
    for (const h of this.allHandlers) h(account, event);
  }
}
