import type { VenueCredentials } from '../../../exchanges/credentials';
import type { ExchangeEvent, OrderResult } from '../../exchange';
import { ALGO_CHANNELS, OkxPrivateStream, PRIVATE_CHANNELS, type OkxStreamOptions } from './stream';
import { translatePush, type InstrumentOf } from './translate';

/** What the adapter takes to open private streams: the addresses and how to handle trouble. */
export type OkxStreamConfig = Pick<
  OkxStreamOptions,
  'url' | 'onProblem' | 'pingMs' | 'backoffMs' | 'maxBackoffMs' | 'random' | 'clock'
> & {
  /** `wss://ws.okx.com:8443/ws/v5/business`: the algo channels (ALGO_UPDATE); left out, none. */
  businessUrl?: string;
};

export interface OkxEventsOptions {
  credentials(account: string): Promise<VenueCredentials>;
  serverNow(): number;
  /** Without it, accounts are read over REST only (fills placed here are still told). */
  stream?: OkxStreamConfig;
  instrumentOf: InstrumentOf;
  now: () => number;
  /** Something changed on the account (an event, or a reconnect that may have missed some). */
  changed(account: string): void;
}

interface Watched {
  streams: OkxPrivateStream[];
  watchers: number;
}

/**
 * What happens on the OKX accounts, to whoever listens: fills placed through the adapter at once, and
 * while someone watches an account, everything its private streams tell (read into Binance's shapes):
 * `/ws/v5/private` for orders and positions, and `/ws/v5/business` for the algo legs when configured.
 */
export class OkxEvents {
  private readonly handlers = new Map<string, Set<(event: ExchangeEvent) => void>>();
  private readonly allHandlers = new Set<(account: string, event: ExchangeEvent) => void>();
  private readonly watched = new Map<string, Watched>();
  /** Each account's pushes are translated one after another, so their events keep OKX's order. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly opts: OkxEventsOptions) {}

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

  /** Keeps the account's private streams open while someone watches it; returns the disposer. */
  watch(account: string): () => void {
    const config = this.opts.stream;
    if (config === undefined) return () => undefined;
    let entry = this.watched.get(account);
    if (entry === undefined) {
      const { businessUrl, ...common } = config;
      const open = (url: string, channels: OkxStreamOptions['channels']) =>
        new OkxPrivateStream({
          ...common,
          url,
          channels,
          credentials: () => this.opts.credentials(account),
          serverNow: () => this.opts.serverNow(),
          onPush: (channel, rows) => this.pushed(account, channel, rows),
          // What happened while the stream was down is read again: subscribers take a fresh snapshot.
          onConnected: () => {
            this.opts.changed(account);
            const now = this.opts.now();
            this.dispatch(account, { e: 'ACCOUNT_UPDATE', E: now, T: now, a: { m: 'ORDER', B: [], P: [] } });
          },
        });
      const streams = [open(config.url, PRIVATE_CHANNELS)];
      if (businessUrl !== undefined) streams.push(open(businessUrl, ALGO_CHANNELS));
      entry = { streams, watchers: 0 };
      this.watched.set(account, entry);
      for (const s of streams) s.start();
    }
    entry.watchers += 1;
    const held = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.watchers -= 1;
      if (held.watchers === 0 && this.watched.get(account) === held) {
        this.watched.delete(account);
        for (const s of held.streams) void s.stop();
      }
    };
  }

  /** Accounts whose every stream is logged in and subscribed now. */
  streaming(): string[] {
    return [...this.watched]
      .filter(([, e]) => e.streams.every((s) => s.connected))
      .map(([account]) => account);
  }

  async stopStreams(): Promise<void> {
    const all = [...this.watched.values()];
    this.watched.clear();
    await Promise.all(all.flatMap((e) => e.streams.map((s) => s.stop())));
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

  private pushed(account: string, channel: string, rows: readonly unknown[]): void {
    const at = this.opts.now();
    const before = this.queues.get(account) ?? Promise.resolve();
    const next = before.then(async () => {
      const { events, dropped } = await translatePush(channel, rows, this.opts.instrumentOf, at);
      for (const what of dropped) {
        this.opts.stream?.onProblem?.({
          reason: `OKX sent a ${what} row we could not read; it was dropped`,
          retryInMs: 0,
          dropped: what,
        });
      }
      if (events.length === 0) return;
      this.opts.changed(account);
      for (const event of events) this.dispatch(account, event);
    });
    const settled = next.catch(() => undefined);
    this.queues.set(account, settled);
    void settled.then(() => {
      if (this.queues.get(account) === settled) this.queues.delete(account);
    });
  }

  private dispatch(account: string, event: ExchangeEvent): void {
    for (const h of this.handlers.get(account) ?? []) h(event);
    for (const h of this.allHandlers) h(account, event);
  }
}
