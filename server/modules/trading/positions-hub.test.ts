import { NO_PROTECTION } from '../../../src/contracts/protection';
import { describe, expect, it } from 'vitest';
import type { OpenOrder, Position } from '../../../src/contracts/trading';
import { PositionsHub, type PositionsSocket } from './positions-hub';

/** A manual clock and timer queue, so throttling is tested without sleeping. */
function fakeTime() {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clearTimer: (t: ReturnType<typeof setTimeout>) => {
      const i = timers.findIndex((x) => x.id === (t as unknown as number));
      if (i >= 0) timers.splice(i, 1);
    },
    async advance(ms: number) {
      now += ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        due.fn();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

function socket(buffered = 0) {
  const sent: string[] = [];
  const closed: number[] = [];
  const s: PositionsSocket = {
    bufferedAmount: buffered,
    send: (d) => sent.push(d),
    close: (code) => closed.push(code ?? 0),
  };
  return { s, sent, closed };
}

const btc = (mark: number): Position => ({
  symbol: 'BTC/USDT',
  side: 'long',
  size: 0.1,
  entryPrice: 60_000,
  markPrice: mark,
  liquidationPrice: 54_000,
  margin: 600,
  unrealizedPnl: (mark - 60_000) * 0.1,
  leverage: 10,
  roe: 0,
  notional: mark * 0.1,
  protection: NO_PROTECTION,
});

const flush = () => new Promise((r) => setImmediate(r));

describe('PositionsHub', () => {
  it('sends a snapshot on connect, then at most 4 per second however often marks move', async () => {
    const time = fakeTime();
    let mark = 60_000;
    const hub = new PositionsHub({ positions: async () => [btc(mark)], ...time });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    expect(client.sent).toHaveLength(1);
    for (let i = 0; i < 100; i++) {
      mark += 1;
      hub.marksMoved(new Set(['BTCUSDT']));
      await time.advance(10); // 100 ticks over one second
    }
    await time.advance(250);
    const snapshots = client.sent.slice(1);
    expect(snapshots.length).toBeGreaterThanOrEqual(3);
    expect(snapshots.length).toBeLessThanOrEqual(5);
    const last = JSON.parse(client.sent.at(-1)!) as { positions: Position[] };
    expect(last.positions[0]?.markPrice).toBe(mark);
  });

  it('ignores marks of symbols the user does not hold and other users’ changes', async () => {
    const time = fakeTime();
    const hub = new PositionsHub({ positions: async () => [btc(60_000)], ...time });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    hub.marksMoved(new Set(['ETHUSDT']));
    hub.accountChanged('u2');
    await time.advance(1000);
    expect(client.sent).toHaveLength(1);
  });

  it('tells about a liquidation at once', async () => {
    const time = fakeTime();
    const hub = new PositionsHub({ positions: async () => [], ...time });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    hub.liquidated('u1', 'BTCUSDT', 54_000);
    expect(JSON.parse(client.sent.at(-1)!)).toMatchObject({
      type: 'liquidation',
      symbol: 'BTCUSDT',
      price: 54_000,
    });
  });

  it('drops a client that does not read instead of buffering for it', async () => {
    const time = fakeTime();
    const hub = new PositionsHub({ positions: async () => [], maxBufferedBytes: 1000, ...time });
    const slow = socket(5000);
    hub.connect('u1', slow.s);
    await flush();
    expect(slow.closed).toEqual([1013]);
    expect(hub.size).toBe(0);
  });

  it('stops all timers when a client leaves', async () => {
    const time = fakeTime();
    const hub = new PositionsHub({ positions: async () => [btc(1)], ...time });
    const client = socket();
    const dispose = hub.connect('u1', client.s);
    await flush();
    hub.accountChanged('u1');
    dispose();
    await time.advance(1000);
    expect(client.sent).toHaveLength(1);
    expect(hub.size).toBe(0);
  });
});

describe('PositionsHub account changes', () => {
  it('shows a fill at once, even right after a snapshot for moved marks', async () => {
    const time = fakeTime();
    let size = 0.1;
    const hub = new PositionsHub({ positions: async () => [{ ...btc(60_000), size }], ...time });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    await time.advance(10);
    hub.marksMoved(new Set(['BTCUSDT'])); // throttled: due 250 ms after the first snapshot
    size = 0.2;
    hub.accountChanged('u1');
    await flush();
    expect(client.sent).toHaveLength(2);
    expect((JSON.parse(client.sent[1]!) as { positions: Position[] }).positions[0]?.size).toBe(0.2);
    // The fresh snapshot stands for the marks' one too.
    await time.advance(1000);
    expect(client.sent).toHaveLength(2);
  });

  it('sends one snapshot per client for many changes at once, and one more for a change during a read', async () => {
    const time = fakeTime();
    let reads = 0;
    let release: () => void = () => undefined;
    const hub = new PositionsHub({
      positions: async () => {
        reads += 1;
        if (reads === 2) await new Promise<void>((r) => (release = r));
        return [];
      },
      ...time,
    });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    for (let i = 0; i < 5; i++) hub.accountChanged('u1');
    await flush();
    expect(reads).toBe(2); // the read for the five changes is under way
    hub.accountChanged('u1');
    await flush();
    expect(reads).toBe(2);
    release();
    await flush();
    await flush();
    expect(reads).toBe(3);
    expect(client.sent).toHaveLength(3);
  });

  it('reads snapshots on the account it keeps for the user, read again when they choose another', async () => {
    const time = fakeTime();
    const asked: string[] = [];
    const read: (string | undefined)[] = [];
    let chosen = 'paper';
    const hub = new PositionsHub({
      positions: async (_userId, account) => {
        read.push(account);
        return [];
      },
      account: async (userId) => {
        asked.push(userId);
        return chosen;
      },
      ...time,
    });
    hub.connect('u1', socket().s);
    await flush();
    hub.accountChanged('u1');
    hub.accountChanged('u1');
    await flush();
    hub.accountChanged('u1');
    await flush();
    expect(asked).toEqual(['u1']);
    expect(read).toEqual([undefined, 'paper', 'paper']);
    chosen = 'key-1';
    hub.accountChosen('u1');
    await flush();
    await flush();
    hub.accountChanged('u1');
    await flush();
    expect(asked).toEqual(['u1', 'u1']);
    expect(read.at(-1)).toBe('key-1');
  });
  it('re-reads the accounts of thirty users together once one is due, not one by one as each ages', async () => {
    const time = fakeTime();
    const rounds: string[][] = [];
    let round: string[] | null = null;
    const hub = new PositionsHub({
      positions: async () => [],
      // Reads asked in the same tick make one round, as the batched reads of the accounts make one statement.
      account: async (userId) => {
        if (round === null) {
          const r: string[] = [];
          round = r;
          rounds.push(r);
          queueMicrotask(() => (round = null));
        }
        round.push(userId);
        return 'paper';
      },
      accountTtlMs: 5_000,
      defer: (fn) => fn(),
      ...time,
    });
    const users = Array.from({ length: 30 }, (_, i) => `u${i}`);
    // The sockets connect over four seconds: their first reads are spread over that time.
    for (const u of users) {
      hub.connect(u, socket().s);
      await flush();
      await time.advance(4_000 / users.length);
    }
    expect(rounds.length).toBe(30);
    rounds.length = 0;
    // From then on each user's snapshot comes when it comes (a fill, a mark); the first one due takes
    // along those past half their age.
    for (let second = 0; second < 20; second++) {
      await time.advance(1_000);
      for (const u of users) {
        hub.accountChanged(u);
        await flush();
      }
    }
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    expect(rounds.length).toBeLessThanOrEqual(5);
    expect(rounds.slice(1).every((r) => r.length === 30)).toBe(true);
  });
});

describe('PositionsHub watching', () => {
  it('watches a user once while any of their sockets is open, and again after a new account choice', async () => {
    const log: string[] = [];
    const hub = new PositionsHub({
      positions: async () => [],
      watch: (userId) => {
        log.push(`watch ${userId}`);
        return () => log.push(`stop ${userId}`);
      },
    });
    const first = hub.connect('u1', socket().s);
    const second = hub.connect('u1', socket().s);
    const other = hub.connect('u2', socket().s);
    expect(log).toEqual(['watch u1', 'watch u2']);
    hub.accountChosen('u1');
    expect(log).toEqual(['watch u1', 'watch u2', 'stop u1', 'watch u1']);
    first();
    expect(log).toHaveLength(4);
    second();
    second();
    expect(log.at(-1)).toBe('stop u1');
    other();
    expect(log.at(-1)).toBe('stop u2');
    expect(log).toHaveLength(6);
    hub.accountChosen('u1');
    expect(log).toHaveLength(6);
    await flush();
  });
});

describe('proposals on the positions socket', () => {
  it("tells a rule's proposal to every socket of its user, and to no one else", async () => {
    const hub = new PositionsHub({ positions: async () => [], defer: (fn) => fn() });
    const mine = [socket(), socket()];
    const theirs = socket();
    for (const c of mine) hub.connect('u1', c.s);
    hub.connect('u2', theirs.s);
    await flush();
    const before = theirs.sent.length;
    hub.tell('u1', { type: 'proposal_closed', event: 'skipped', decision: {} as never, time: 1 });
    for (const c of mine)
      expect(JSON.parse(c.sent.at(-1) ?? '{}')).toMatchObject({ type: 'proposal_closed' });
    expect(theirs.sent.length).toBe(before);
  });

  it('reads the resting orders on connect and on account changes, never for a move of the marks', async () => {
    const time = fakeTime();
    const reads: (string | undefined)[] = [];
    const order = { id: 'o1', symbol: 'BTC/USDT' } as unknown as OpenOrder;
    const hub = new PositionsHub({
      positions: async () => [btc(60_000)],
      orders: async (_user, account) => {
        reads.push(account);
        return [order];
      },
      ...time,
      defer: (fn) => fn(),
    });
    const client = socket();
    hub.connect('u1', client.s);
    await flush();
    hub.marksMoved(new Set(['BTCUSDT']));
    await time.advance(300);
    hub.accountChanged('u1');
    await flush();
    const messages = client.sent.map((m) => JSON.parse(m) as { type: string; orders?: unknown[] });
    expect(messages.map((m) => m.orders?.length ?? null)).toEqual([1, null, 1]);
    expect(reads).toHaveLength(2);
  });
});
