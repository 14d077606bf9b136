import { Redis } from 'ioredis';
import { BusEvents, type BusEventMap, type BusTopic } from '../../../src/contracts/events';
import { HandlerTable, type Bus, type BusHandler, type Disposer } from './bus';

export interface RedisBusOptions {
  url: string;
  /** Channel prefix, so that several deployments (or test runs) can share one Redis. */
  prefix?: string;
  onHandlerError?: (topic: BusTopic, err: unknown) => void;
  /** Called for a message that does not match its topic's schema; it is dropped. */
  onInvalidMessage?: (topic: string, reason: string) => void;
  /**
   * Called when a connection to Redis is lost or a publish could not be delivered (once per outage and
   * connection); the connections reconnect by themselves, with their subscriptions.
   */
  onConnectionProblem?: (reason: string) => void;
}

/**
 * Redis pub/sub bus: every server process sharing the Redis sees every event. Messages are JSON and are
 * validated against the contract's schema on receipt, since they cross a process boundary.
 */
export class RedisBus implements Bus {
  readonly kind = 'redis' as const;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly table: HandlerTable;
  private readonly prefix: string;
  private readonly subscribed = new Set<string>();
  private readonly onInvalid: (topic: string, reason: string) => void;

  private constructor(opts: RedisBusOptions) {
    this.prefix = opts.prefix ?? 'bus:';
    this.table = new HandlerTable(opts.onHandlerError ?? (() => {}));
    this.onInvalid = opts.onInvalidMessage ?? (() => {});
    const common = { lazyConnect: true, maxRetriesPerRequest: 3, enableOfflineQueue: true } as const;
    this.pub = new Redis(opts.url, common);
    this.sub = new Redis(opts.url, common);
    this.sub.on('message', (channel: string, message: string) => this.receive(channel, message));
    const problem = opts.onConnectionProblem ?? (() => {});
    for (const [name, conn] of [
      ['publisher', this.pub],
      ['subscriber', this.sub],
    ] as const) {
      // ioredis retries with back-off and resubscribes on its own; one line per outage is enough.
      let reported = false;
      conn.on('error', (err: Error) => {
        if (reported) return;
        reported = true;
        problem(`${name}: ${err.message}`);
      });
      conn.on('ready', () => {
        reported = false;
      });
    }
    this.onPublishFailed = (reason) => problem(`publish: ${reason}`);
  }

  private readonly onPublishFailed: (reason: string) => void;

  /** Connects both connections; rejects if Redis does not answer. */
  static async connect(opts: RedisBusOptions): Promise<RedisBus> {
    const bus = new RedisBus(opts);
    try {
      await Promise.all([bus.pub.connect(), bus.sub.connect()]);
    } catch (err) {
      bus.pub.disconnect();
      bus.sub.disconnect();
      throw err;
    }
    return bus;
  }

  /**
   * At-most-once, like every bus: while Redis is away the event waits in ioredis' queue for a few
   * reconnect attempts and is then dropped (reported, never thrown at the publisher).
   */
  async publish<K extends BusTopic>(topic: K, payload: BusEventMap[K]): Promise<void> {
    try {
      await this.pub.publish(this.prefix + topic, JSON.stringify(payload));
    } catch (err) {
      this.onPublishFailed(err instanceof Error ? err.message : String(err));
    }
  }

  subscribe<K extends BusTopic>(topic: K, handler: BusHandler<K>): Disposer {
    const channel = this.prefix + topic;
    if (!this.subscribed.has(channel)) {
      this.subscribed.add(channel);
      void this.sub.subscribe(channel).catch(() => this.subscribed.delete(channel));
    }
    const dispose = this.table.add(topic, handler);
    return () => {
      dispose();
      if (this.table.count(topic) === 0 && this.subscribed.delete(channel)) {
        void this.sub.unsubscribe(channel).catch(() => {});
      }
    };
  }

  /** Resolves once Redis has confirmed every subscription made so far. */
  async ready(): Promise<void> {
    await this.sub.ping().catch(() => {});
  }

  healthy(): boolean {
    return this.pub.status === 'ready' && this.sub.status === 'ready';
  }

  async close(): Promise<void> {
    this.table.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }

  private receive(channel: string, message: string): void {
    if (!channel.startsWith(this.prefix)) return;
    const topic = channel.slice(this.prefix.length);
    if (!(topic in BusEvents)) return;
    const schema = BusEvents[topic as BusTopic];
    let raw: unknown;
    try {
      raw = JSON.parse(message);
    } catch {
      this.onInvalid(topic, 'not JSON');
      return;
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      this.onInvalid(topic, parsed.error.issues[0]?.message ?? 'schema mismatch');
      return;
    }
    this.table.deliver(topic as BusTopic, parsed.data);
  }
}
