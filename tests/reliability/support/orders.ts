import { OrderResponse } from '../../../src/contracts/trading';
import type { Answer, Api } from './api';
import { sample, sleep } from './mode';

/** One order the test sent: its user, its Idempotency-Key and body, and what each try of it answered. */
export interface SentOrder {
  user: number;
  /** The burst it was sent in (1, 2, 3: one per kill). */
  round: number;
  key: string;
  body: { symbol: string; side: 'long' | 'short'; type: 'market'; amount: number };
  /** The first try's answer: `null` when none came (the kill cut it). */
  first: Answer | null;
  /** Every order id any try of this key answered with (more than one would be a doubled order). */
  orderIds: Set<string>;
  /** The order, once a try answered 200 with one. */
  order: OrderResponse | null;
  /** A refusal (4xx) the server stands by on every try, e.g. "Margin is insufficient.". */
  refusal: string | null;
}

/** An answer to `POST /api/orders`, read. */
export type OrderAnswer =
  | { kind: 'order'; order: OrderResponse }
  | { kind: 'refused'; status: number; detail: string }
  | { kind: 'unknown'; status: number | null; detail: string };

export function readOrderAnswer(answer: Answer | null): OrderAnswer {
  if (answer === null) return { kind: 'unknown', status: null, detail: 'no answer' };
  const detail = detailOf(answer.body);
  if (answer.status === 200) {
    const parsed = OrderResponse.safeParse(answer.body);
    return parsed.success
      ? { kind: 'order', order: parsed.data }
      : { kind: 'unknown', status: 200, detail: JSON.stringify(answer.body) };
  }
  // A refusal (400, 422) is final. 409 ("already being placed") cannot happen to a key only ever sent
  // once at a time, so like 429, 5xx and no answer at all it leaves the key unsettled.
  if (answer.status === 400 || answer.status === 422)
    return { kind: 'refused', status: answer.status, detail };
  return { kind: 'unknown', status: answer.status, detail };
}

function detailOf(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) return String(body.detail);
  return JSON.stringify(body);
}

/** Every order a scenario sent, by key, and what became of each. */
export class OrderBook {
  readonly orders = new Map<string, SentOrder>();

  add(user: number, round: number, key: string, body: SentOrder['body']): SentOrder {
    const sent: SentOrder = {
      user,
      round,
      key,
      body,
      first: null,
      orderIds: new Set(),
      order: null,
      refusal: null,
    };
    this.orders.set(key, sent);
    return sent;
  }

  /** Records a try's answer; answers what it was. */
  settle(sent: SentOrder, answer: Answer | null): OrderAnswer {
    const read = readOrderAnswer(answer);
    if (read.kind === 'order') {
      sent.orderIds.add(read.order.id);
      sent.order ??= read.order;
    } else if (read.kind === 'refused') {
      sent.refusal = read.detail;
    }
    return read;
  }

  /** Orders whose first try answered 200 with an order id. */
  acknowledged(): SentOrder[] {
    return [...this.orders.values()].filter((o) => readOrderAnswer(o.first).kind === 'order');
  }

  /** Orders no try has settled yet: neither an order nor a refusal. */
  unsettled(): SentOrder[] {
    return [...this.orders.values()].filter((o) => o.order === null && o.refusal === null);
  }
}

const SYMBOLS = ['ETH/USDT', 'SOL/USDT'] as const;

/**
 * Users sending orders as fast as the server answers, `perUser` at a time each, every order with its
 * own Idempotency-Key; sides alternate so that margin lasts. `stop()` ends the sending (tries in flight
 * finish or are cut); `done` resolves when every worker has returned.
 */
export function startBurst(opts: {
  users: Api[];
  book: OrderBook;
  perUser: number;
  /** The burst's number: it prefixes the keys, so that keys are unique across bursts. */
  round: number;
  /** The pairs ordered, in turn (ETH/USDT and SOL/USDT unless given). */
  symbols?: readonly string[];
}) {
  const symbols = opts.symbols ?? SYMBOLS;
  let stopped = false;
  let acked = 0;
  let inFlight = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const workers: Promise<void>[] = [];
  opts.users.forEach((api, user) => {
    let n = 0;
    for (let w = 0; w < opts.perUser; w += 1) {
      workers.push(
        (async () => {
          while (!stopped) {
            const i = n++;
            const key = `r${opts.round}-u${user}-${String(i).padStart(5, '0')}`;
            const sent = opts.book.add(user, opts.round, key, {
              symbol: symbols[i % symbols.length] ?? 'ETH/USDT',
              side: Math.floor(i / symbols.length) % 2 === 0 ? 'long' : 'short',
              type: 'market',
              amount: 120 + (i % 7) * 10,
            });
            inFlight += 1;
            const answer = await api.send('POST', '/orders', sent.body, {
              headers: { 'idempotency-key': key },
            });
            inFlight -= 1;
            sent.first = answer;
            if (opts.book.settle(sent, answer).kind === 'order') {
              acked += 1;
              for (const w of waiters.filter((x) => acked >= x.n)) w.resolve();
            }
            if (answer === null) return; // the server is gone
          }
        })(),
      );
    }
  });
  const done = Promise.all(workers).then(() => undefined);
  return {
    /** Resolves once `n` orders of this burst were acknowledged; rejects if the burst ends before. */
    acknowledged(n: number): Promise<void> {
      if (acked >= n) return Promise.resolve();
      return Promise.race([
        new Promise<void>((resolve) => waiters.push({ n, resolve })),
        done.then(() => {
          throw new Error(`the burst ended after ${acked} acknowledged orders, before ${n}`);
        }),
      ]);
    },
    acked: () => acked,
    inFlight: () => inFlight,
    stop(): void {
      stopped = true;
    },
    done,
  };
}

/**
 * A burst's client: sends a key, sends it again as a client whose try got no answer would (a 503
 * "outcome unknown", the documented answer while an interrupted order may still appear, is asked again
 * after the server's settle time, up to `retries` times), and replays acknowledged keys (the same order,
 * never a new one); `recover` does both for a round a kill cut. What goes wrong is added to `problems`.
 */
export function orderClient(opts: {
  book: OrderBook;
  problems: string[];
  users: () => readonly Api[];
  settleMs: number;
  retries: number;
}) {
  const { book, problems } = opts;
  const send = async (o: SentOrder): Promise<OrderAnswer> => {
    const api = opts.users()[o.user];
    if (api === undefined) throw new Error(`no user ${o.user}`);
    return book.settle(
      o,
      await api.send('POST', '/orders', o.body, { headers: { 'idempotency-key': o.key } }),
    );
  };
  const retry = async (o: SentOrder): Promise<{ read: OrderAnswer; waited: boolean }> => {
    let read = await send(o);
    let waited = false;
    for (let again = 0; again < opts.retries && read.kind === 'unknown' && read.status === 503; again += 1) {
      waited = true;
      await sleep(opts.settleMs + 500);
      read = await send(o);
    }
    if (read.kind === 'unknown') problems.push(`retry of ${o.key}: ${read.status} ${read.detail}`);
    return { read, waited };
  };
  const replay = async (o: SentOrder): Promise<void> => {
    const first = o.order?.id;
    const read = await send(o);
    if (read.kind !== 'order' || read.order.id !== first) {
      problems.push(
        `replay of ${o.key}: ${read.kind === 'order' ? read.order.id : read.detail}, not ${first}`,
      );
    }
  };
  /**
   * After a kill: every key of `round` the kill left unanswered sent again, and up to `replays`
   * acknowledged keys of any round replayed; answers the round's figures.
   */
  const recover = async (round: number, replays: number) => {
    const thisRound = [...book.orders.values()].filter((o) => o.round === round);
    const unacknowledged = thisRound.filter((o) => o.order === null);
    const retried = await Promise.all(unacknowledged.map(retry));
    const replayed = sample(book.acknowledged(), replays);
    await Promise.all(replayed.map(replay));
    return {
      sent: thisRound.length,
      acknowledged: thisRound.length - unacknowledged.length,
      recovered: retried.filter((r) => r.read.kind === 'order').length,
      refused: retried.filter((r) => r.read.kind === 'refused').length,
      answered503: retried.filter((r) => r.waited).length,
      replayed: replayed.length,
    };
  };
  return { send, retry, replay, recover };
}
