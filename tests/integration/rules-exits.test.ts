import { eq, ne } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/contracts/clock';
import { OrderResponse } from '../../src/contracts/trading';
import type { Database } from '../../server/db/client';
import { ruleDecisions, rules, users } from '../../server/db/schema';
import { appError } from '../../server/plugins/errors';
import { ExitWatcher, type ExitDeps } from '../../server/modules/rules/rule-exits';
import { RulesRepo } from '../../server/modules/rules/rules.repo';
import type { DecisionRow } from '../../server/modules/rules/rules.types';
import { dbTargets, useDatabase } from '../helpers/db';

/** A venue's answer to one reduce: a fill, nothing left, a failure, or a wait held by the test. */
type Step = 'fill' | 'gone' | Error | { fillThen: Error } | Promise<void>;

/**
 * The venue an exit closes on, as the exits see it: each reduce under its client id, the fills by
 * client id (what a look-up finds), and the next answers scripted per decision.
 */
class Venue {
  readonly sent: { decision: number; clientId: string }[] = [];
  readonly fills = new Map<string, OrderResponse>();
  readonly lookups: string[] = [];
  private readonly script = new Map<number, Step[]>();
  lookupFails = 0;

  next(decision: number, ...steps: Step[]): void {
    this.script.set(decision, [...(this.script.get(decision) ?? []), ...steps]);
  }

  fillsOf(decision: number): OrderResponse[] {
    return [...this.fills.entries()].filter(([id]) => id.startsWith(`sc-exit-${decision}`)).map(([, f]) => f);
  }

  reduce = async (d: DecisionRow, clientId: string): Promise<OrderResponse | null> => {
    this.sent.push({ decision: d.id, clientId });
    const step = this.script.get(d.id)?.shift() ?? 'fill';
    if (step instanceof Promise) {
      await step;
      return this.fill(d, clientId);
    }
    if (step instanceof Error) throw step;
    if (step === 'gone') return null;
    if (step !== 'fill') {
      this.fill(d, clientId);
      throw step.fillThen;
    }
    return this.fill(d, clientId);
  };

  find = async (_d: DecisionRow, clientId: string): Promise<OrderResponse | 'unfilled' | null> => {
    this.lookups.push(clientId);
    if (this.lookupFails > 0) {
      this.lookupFails -= 1;
      throw appError('SERVICE_UNAVAILABLE', 'Binance did not answer the look-up.');
    }
    return this.fills.get(clientId) ?? null;
  };

  private fill(d: DecisionRow, clientId: string): OrderResponse {
    // Parsed, so that the fields the answer defaults are there as the server's would be.
    const fill = OrderResponse.parse({
      id: `venue-${this.fills.size + 1}`,
      symbol: d.symbol,
      side: d.side === 'long' ? 'sell' : 'buy',
      quantity: Number(d.quantity),
      price: 101,
      notional: Number(d.quantity) * 101,
      fee: 0.05,
      status: 'filled',
      realizedPnl: 1,
      account: { venue: 'binance', mode: 'live', keyHint: '…abcd' },
    });
    this.fills.set(clientId, fill);
    return fill;
  }
}

const serverError = () => appError('SERVICE_UNAVAILABLE', 'Binance answered 500: An unknown error occured.');
const rateLimited = () => appError('RATE_LIMITED', 'Binance is rate-limiting this server; try again in 1 s.');
const timedOut = () => appError('OUTCOME_UNKNOWN', 'Binance did not answer in time; the order may exist.');

/** Real timers, and a `now` the test moves on (past a back-off, past a claim's stale age). */
function testClock(): Clock & { skip(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
    skip(ms) {
      offset += ms;
    },
  };
}

describe.each(dbTargets())('rule exits on one lifecycle, on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let repo: RulesRepo;
  let userId = '';
  let ruleId = '';
  let signal = 0;
  let venue: Venue;
  let clock: ReturnType<typeof testClock>;
  let failing: { decision: number; detail: string }[];
  let exited: number[];

  beforeAll(async () => {
    database = await target.open();
    repo = new RulesRepo(database.db);
    const [user] = await database.db
      .insert(users)
      .values({ email: 'exits@example.com', username: 'exits' })
      .returning({ id: users.id });
    userId = user!.id;
    const [rule] = await database.db
      .insert(rules)
      .values({ userId, name: 'ETH news', side: 'long', amountUsd: '150' })
      .returning({ id: rules.id });
    ruleId = rule!.id;
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });
  beforeEach(() => {
    venue = new Venue();
    clock = testClock();
    failing = [];
    exited = [];
  });
  // Each test's exits are its own: what one leaves open or closing is not another's to close.
  afterEach(async () => {
    await database.db
      .update(ruleDecisions)
      .set({ exitState: 'closed' })
      .where(ne(ruleDecisions.exitState, 'closed'));
  });

  /** A position a rule opened on `account`, its max hold long past: due to close at the next check. */
  const opened = async (account = 'key-1', over: Partial<DecisionRow> = {}): Promise<DecisionRow> => {
    const [row] = await database.db
      .insert(ruleDecisions)
      .values({
        userId,
        ruleId,
        ruleName: 'ETH news',
        ruleVersion: 1,
        signalId: ++signal,
        asset: 'ETH',
        symbol: 'ETHUSDT',
        side: 'long',
        amountUsd: '150',
        outcome: 'fired',
        price: '100',
        quantity: '0.05',
        orderId: `open-${signal}`,
        account,
        accountMode: 'live',
        exitPlan: { max_hold_minutes: 1 },
        exitState: 'open',
        decidedAt: new Date(Date.now() - 3_600_000),
        ...over,
      })
      .returning();
    return row!;
  };
  const rowOf = async (id: number) => {
    const [row] = await database.db.select().from(ruleDecisions).where(eq(ruleDecisions.id, id));
    return row!;
  };
  const watcher = (over: Partial<ExitDeps> = {}) =>
    new ExitWatcher({
      repo,
      clock,
      priceOf: () => undefined,
      reduce: venue.reduce,
      find: venue.find,
      log: { warn: () => undefined, info: () => undefined },
      exited: (d) => exited.push(d.id),
      failing: (d, detail) => failing.push({ decision: d.id, detail }),
      ...over,
    });
  /** Checks again and again, moving time past each back-off, until the exit is closed (or `tries` ran out). */
  const untilClosed = async (exits: ExitWatcher, id: number, tries = 12) => {
    for (let i = 0; i < tries; i++) {
      await exits.reload();
      await exits.check();
      const row = await rowOf(id);
      if (row.exitState === 'closed') return row;
      clock.skip(61_000);
    }
    return rowOf(id);
  };

  it('thirty claims of one exit at once: exactly one process gets it', async () => {
    const d = await opened();
    const now = new Date(clock.now());
    const claims = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        repo.claimExit(d.id, { now, reason: `try ${i}`, clientId: `sc-exit-${d.id}`, force: i % 2 === 0 }),
      ),
    );
    expect(claims.filter((c) => c !== null)).toHaveLength(1);
    const row = await rowOf(d.id);
    expect(row).toMatchObject({ exitState: 'closing', exitClientId: `sc-exit-${d.id}`, exitAttempts: 0 });
    expect(row.exitStartedAt?.getTime()).toBe(now.getTime());
  });

  it('two exit watchers on one database close an exit once', async () => {
    const d = await opened();
    const a = watcher();
    const b = watcher();
    await Promise.all([a.reload(), b.reload()]);
    await Promise.all([a.check(), b.check(), a.check(), b.check(), a.flatten(userId), b.flatten(userId)]);
    expect(venue.sent.filter((s) => s.decision === d.id)).toHaveLength(1);
    expect(await rowOf(d.id)).toMatchObject({
      exitState: 'closed',
      exitOrderId: 'venue-1',
      exitNote: 'max hold of 1 min; closed 0.05 at 101',
      exitPnl: '0.95',
    });
    expect(exited).toEqual([d.id]);
  });

  it('a reduce refused with a 5xx, then a 429, then timed out is tried again after its back-off until closed, with one fill', async () => {
    const d = await opened();
    venue.next(d.id, serverError(), rateLimited(), timedOut());
    const exits = watcher();
    await exits.reload();
    await exits.check();
    let row = await rowOf(d.id);
    // Back to open, one failed try counted, not before its back-off.
    expect(row).toMatchObject({ exitState: 'open', exitAttempts: 1, exitClientId: `sc-exit-${d.id}` });
    expect(row.exitNote).toBe(
      'max hold of 1 min; close failed (try 1): Binance answered 500: An unknown error occured. Trying again.',
    );
    expect(row.exitNextAt!.getTime() - clock.now()).toBeGreaterThan(500);
    await exits.check();
    expect(venue.sent).toHaveLength(1);
    clock.skip(1_001);
    await exits.check();
    row = await rowOf(d.id);
    expect(row).toMatchObject({ exitState: 'open', exitAttempts: 2 });
    expect(row.exitNextAt!.getTime() - clock.now()).toBeGreaterThan(1_500);
    expect(failing).toEqual([]);
    clock.skip(2_001);
    await exits.check();
    // The third failure is told once; it keeps trying.
    expect(failing).toEqual([{ decision: d.id, detail: timedOut().detail }]);
    row = await untilClosed(exits, d.id);
    expect(row).toMatchObject({ exitState: 'closed', exitAttempts: 3, exitNextAt: null });
    expect(venue.fillsOf(d.id)).toHaveLength(1);
    // Every try after the first looked the close up by its client id first: nothing was found, so it was sent again.
    expect(venue.lookups).toEqual([`sc-exit-${d.id}`, `sc-exit-${d.id}`, `sc-exit-${d.id}`]);
    expect(failing).toHaveLength(1);
  });

  it('a reduce whose answer was lost after it filled is found by its client id: closed with that fill, never sent twice', async () => {
    const d = await opened();
    venue.next(d.id, { fillThen: timedOut() });
    const exits = watcher();
    await exits.reload();
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({ exitState: 'open', exitAttempts: 1 });
    const row = await untilClosed(exits, d.id);
    expect(row).toMatchObject({ exitState: 'closed', exitOrderId: 'venue-1' });
    expect(venue.sent).toHaveLength(1);
    expect(venue.fillsOf(d.id)).toHaveLength(1);
  });

  it('a look-up that does not answer sends nothing: the exit stays open and is tried again', async () => {
    const d = await opened();
    venue.next(d.id, timedOut());
    venue.lookupFails = 2;
    const exits = watcher();
    const row = await untilClosed(exits, d.id);
    expect(row).toMatchObject({ exitState: 'closed', exitAttempts: 3 });
    expect(venue.sent).toHaveLength(2);
    expect(venue.fillsOf(d.id)).toHaveLength(1);
  });

  it('a database error between the fill and its record leaves the exit retrying: closed by the look-up, one fill', async () => {
    const d = await opened();
    const complete = repo.completeExit.bind(repo);
    let broken = 1;
    const flaky = Object.create(repo) as RulesRepo;
    flaky.completeExit = async (...args) => {
      if (broken-- > 0) throw new Error('connection terminated unexpectedly');
      return complete(...args);
    };
    const exits = watcher({ repo: flaky });
    await exits.reload();
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({ exitState: 'open', exitAttempts: 1 });
    const row = await untilClosed(exits, d.id);
    expect(row).toMatchObject({ exitState: 'closed', exitOrderId: 'venue-1' });
    expect(venue.sent).toHaveLength(1);
  });

  it('when even putting it back fails it stays closing, and is taken over once stale: looked up, not sent again', async () => {
    const d = await opened();
    const flaky = Object.create(repo) as RulesRepo;
    let broken = true;
    flaky.completeExit = async (...args) => {
      if (broken) throw new Error('connection terminated unexpectedly');
      return repo.completeExit(...args);
    };
    flaky.releaseExit = async (...args) => {
      if (broken) throw new Error('connection terminated unexpectedly');
      return repo.releaseExit(...args);
    };
    const exits = watcher({ repo: flaky, staleMs: 30_000 });
    await exits.reload();
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({ exitState: 'closing' });
    broken = false;
    clock.skip(10_000);
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({ exitState: 'closing' });
    clock.skip(30_000);
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({ exitState: 'closed', exitOrderId: 'venue-1' });
    expect(venue.sent).toHaveLength(1);
  });

  it('a close a dead process left closing is taken over: sent once when the venue has no such order', async () => {
    const d = await opened();
    const claimedAt = new Date(clock.now() - 200_000);
    await database.db
      .update(ruleDecisions)
      .set({
        exitState: 'closing',
        exitReason: 'stop loss: -2.00% at 98',
        exitClientId: `sc-exit-${d.id}`,
        exitStartedAt: claimedAt,
      })
      .where(eq(ruleDecisions.id, d.id));
    const exits = watcher();
    await exits.check();
    expect(venue.lookups).toEqual([`sc-exit-${d.id}`]);
    expect(venue.sent).toEqual([{ decision: d.id, clientId: `sc-exit-${d.id}` }]);
    expect(await rowOf(d.id)).toMatchObject({
      exitState: 'closed',
      exitNote: 'stop loss: -2.00% at 98; closed 0.05 at 101',
    });
  });

  it('an order the venue ended unfilled spends its client id: the next order goes under a new one', async () => {
    const d = await opened();
    venue.next(d.id, timedOut());
    const exits = watcher({
      find: async (row, clientId) =>
        clientId === `sc-exit-${row.id}` ? 'unfilled' : venue.find(row, clientId),
    });
    const row = await untilClosed(exits, d.id);
    expect(row).toMatchObject({ exitState: 'closed', exitClientId: `sc-exit-${d.id}-1` });
    expect(venue.sent.map((s) => s.clientId)).toEqual([`sc-exit-${d.id}`, `sc-exit-${d.id}-1`]);
  });

  it("one account's slow close does not hold another account's exit; past its deadline its queue moves on", async () => {
    const slow = await opened('key-slow');
    const slowToo = await opened('key-slow');
    const quick = await opened('key-quick');
    let release: () => void = () => undefined;
    venue.next(slow.id, new Promise<void>((resolve) => (release = resolve)));
    const exits = watcher({ closeDeadlineMs: 1_000 });
    await exits.reload();
    const started = Date.now();
    const checked = exits.check();
    let quickMs: number | null = null;
    for (let i = 0; i < 200 && quickMs === null; i++) {
      if ((await rowOf(quick.id)).exitState === 'closed') quickMs = Date.now() - started;
      else await new Promise((r) => setTimeout(r, 10));
    }
    // The other account's exit closed while the slow one still waits for its venue, well before its
    // deadline, and the slow account's next exit still waits its turn.
    expect(quickMs).not.toBeNull();
    expect(quickMs!).toBeLessThan(800);
    expect((await rowOf(slow.id)).exitState).toBe('closing');
    expect((await rowOf(slowToo.id)).exitState).toBe('open');
    await checked;
    // Past the deadline the slow account's next exit went; the slow close is still under way, never sent twice.
    expect((await rowOf(slowToo.id)).exitState).toBe('closed');
    expect((await rowOf(slow.id)).exitState).toBe('closing');
    await exits.check();
    expect(venue.sent.filter((s) => s.decision === slow.id)).toHaveLength(1);
    expect(exits.closes).toBe(1);
    release();
    for (let i = 0; i < 100 && (await rowOf(slow.id)).exitState !== 'closed'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await rowOf(slow.id)).toMatchObject({ exitState: 'closed', exitAttempts: 0 });
    expect(venue.fillsOf(slow.id)).toHaveLength(1);
  });

  it('a tick for an account whose queue is busy is not lost: its exit closes once the queue is free', async () => {
    const first = await opened('key-busy', { exitPlan: { stop_loss_pct: 1 } });
    const second = await opened('key-busy', { exitPlan: { stop_loss_pct: 1 } });
    let release: () => void = () => undefined;
    venue.next(first.id, new Promise<void>((resolve) => (release = resolve)));
    const marks = new Map<number, number>([[first.id, 98]]);
    const exits = watcher({ priceOf: (d) => marks.get(d.id) });
    await exits.reload();
    const one = exits.check(new Set(['ETHUSDT']));
    // The second one's stop is hit while the account's queue waits on the first.
    marks.set(second.id, 98);
    const two = exits.check(new Set(['ETHUSDT']));
    await new Promise((r) => setTimeout(r, 50));
    expect((await rowOf(second.id)).exitState).toBe('open');
    release();
    await Promise.all([one, two]);
    expect((await rowOf(first.id)).exitState).toBe('closed');
    expect(await rowOf(second.id)).toMatchObject({
      exitState: 'closed',
      exitNote: 'stop loss: -2.00% at 98; closed 0.05 at 101',
    });
  });

  it('a retraction unwind that fails stays open and watched, and is tried again on its back-off', async () => {
    const d = await opened('key-u', { exitPlan: null, retractedBy: 99 });
    venue.next(d.id, serverError());
    const exits = watcher();
    await exits.unwind(d, 'closed: retracted by #99');
    expect(await rowOf(d.id)).toMatchObject({
      exitState: 'open',
      exitAttempts: 1,
      exitReason: 'closed: retracted by #99',
    });
    expect(exits.count).toBe(1);
    await exits.check();
    expect(venue.sent).toHaveLength(1);
    clock.skip(1_001);
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({
      exitState: 'closed',
      exitNote: 'closed: retracted by #99; closed 0.05 at 101',
    });
  });

  it('a retracted position no unwind reached (the process stopped first) is found by the reload and closed', async () => {
    const d = await opened('key-u', { exitPlan: null, retractedBy: 98 });
    const keeps = await opened('key-u', { exitPlan: { on_retraction: 'keep' }, retractedBy: 98 });
    const exits = watcher();
    await exits.reload();
    await exits.check();
    expect(await rowOf(d.id)).toMatchObject({
      exitState: 'closed',
      exitNote: 'closed: retracted by #98; closed 0.05 at 101',
    });
    expect((await rowOf(keeps.id)).exitState).toBe('open');
    expect(venue.sent.map((x) => x.decision)).toEqual([d.id]);
  });

  it('flatten answers what it closed, what was gone and what failed; the failed one keeps trying', async () => {
    const [a, b, c] = [await opened('key-f'), await opened('key-f'), await opened('key-g')];
    venue.next(b.id, 'gone');
    venue.next(c.id, serverError());
    const exits = watcher();
    const flat = await exits.flatten(userId);
    expect(flat).toEqual({ closed: 1, gone: 1, failed: [serverError().detail] });
    expect((await rowOf(b.id)).exitNote).toBe('flattened (rules flatten); already closed by hand');
    expect(await rowOf(c.id)).toMatchObject({ exitState: 'open', exitAttempts: 1 });
    expect(await rowOf(a.id)).toMatchObject({
      exitState: 'closed',
      exitNote: 'flattened (rules flatten); closed 0.05 at 101',
    });
    expect((await untilClosed(exits, c.id)).exitState).toBe('closed');
    expect((await rowOf(c.id)).exitNote).toBe('flattened (rules flatten); closed 0.05 at 101');
  });
});
