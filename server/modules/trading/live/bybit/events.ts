import type { VenueCredentials } from '../../../exchanges/credentials';
import type { ExchangeEvent, OrderResult } from '../../exchange';
import { BybitPrivateStream, type BybitStreamOptions } from './stream';
import { translatePush, type BybitStreamFees } from './translate';

/** What the adapter takes to open private streams (the address and how to handle trouble). */
export type BybitStreamConfig = Pick<
  BybitStreamOptions,
  'url' | 'onProblem' | 'pingMs' | 'backoffMs' | 'maxBackoffMs' | 'random' | 'clock'
>;

export interface BybitEventsOptions {
  credentials(account: string): Promise<VenueCredentials>;
  serverNow(): number;
  /** Without it, accounts are read over REST only (fills placed here are still told). */
  stream?: BybitStreamConfig;
  streamFees: BybitStreamFees;
  now: () => number;
  /** Something changed on the account (an event, or a reconnect that may have missed some). */
  changed(account: string): void;
}

/**
 * What happens on the Bybit accounts, to whoever listens: fills placed through the adapter at once, and
 * while someone watches an account, everything its private stream tells (read into Binance's shapes).
 */
export class BybitEvents {
  private readonly handlers = new Map<string, Set<(event: ExchangeEvent) => void>>();
  private readonly allHandlers = new Set<(account: string, event: ExchangeEvent) => void>();
  private readonly streams = new Map<string, { stream: BybitPrivateStream; watchers: number }>();

  constructor(private readonly opts: BybitEventsOptions) {}

  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void {
    let set = this.handlers.get(account);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(account, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    this.allHandlers.add(handler);
    return () => this.allHandlers.delete(handler);
  }

  /** Keeps the account's private stream open while someone watches it; returns the disposer. */
  watch(account: string): () => void {
    const config = this.opts.stream;
    if (config === undefined) return () => undefined;
    let entry = this.streams.get(account);
    if (entry === undefined) {
      const stream = new BybitPrivateStream({
        ...config,
        credentials: () => this.opts.credentials(account),
        serverNow: () => this.opts.serverNow(),
        onPush: (topic, rows, at) => this.pushed(account, topic, rows, at),
        // What happened while the stream was down is read again: subscribers take a fresh snapshot.
        onConnected: () => {
          this.opts.changed(account);
          const now = this.opts.now();
          this.dispatch(account, { e: 'ACCOUNT_UPDATE', E: now, T: now, a: { m: 'ORDER', B: [], P: [] } });
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

  streaming(): string[] {
    return [...this.streams].filter(([, e]) => e.stream.connected).map(([account]) => account);
  }

  async stopStreams(): Promise<void> {
    const all = [...this.streams.values()];
    this.streams.clear();
    await Promise.all(all.map((e) => e.stream.stop()));
  }

  /** Tells the subscribers of a fill placed through the adapter (as Binance's ORDER_TRADE_UPDATE). */
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

  private pushed(account: string, topic: string, rows: readonly unknown[], at: number): void {
    const { events, fills, dropped } = translatePush(topic, rows, at);
    for (const fill of fills) this.opts.streamFees.add(account, fill);
    for (const what of dropped) {
      this.opts.stream?.onProblem?.({
        reason: `Bybit sent a ${what} row we could not read; it was dropped`,
        retryInMs: 0,
        dropped: what,
      });
    }
    if (events.length === 0) return;
    this.opts.changed(account);
    for (const event of events) this.dispatch(account, event);
  }

  private dispatch(account: string, event: ExchangeEvent): void {
    for (const h of this.handlers.get(account) ?? []) h(event);
    for (const h of this.allHandlers) h(account, event);
  }
}
