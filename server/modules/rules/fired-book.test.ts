import { describe, expect, it } from 'vitest';
import { BOOK_REACH_MS, BOOK_REREAD_MS, FiredBook } from './fired-book';
import type { CountedDecision, DecisionChange } from './rules.types';

const DAY = 86_400_000;
const MIDNIGHT = Date.UTC(2026, 10, 27);
const NOON = MIDNIGHT + DAY / 2;

/** A book over a ledger held in an array, counting its reads; `gate` holds a read until released. */
function setUp(ledger: CountedDecision[]) {
  let now = NOON;
  const reads: string[][] = [];
  let gate: Promise<void> | null = null;
  const book = new FiredBook(
    async (userIds, from) => {
      reads.push([...userIds]);
      const rows = ledger.filter((d) => userIds.includes(d.userId) && d.at > from.getTime());
      const copy = rows.map((r) => ({ ...r }));
      if (gate !== null) await gate;
      return copy;
    },
    () => now,
  );
  return {
    book,
    reads,
    advance: (ms: number) => {
      now += ms;
    },
    hold(): () => void {
      let release = () => undefined as void;
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = null;
          resolve();
        };
      });
      return release;
    },
  };
}

const change = (c: Partial<DecisionChange> & Pick<DecisionChange, 'id' | 'outcome'>): DecisionChange => ({
  userId: 'u1',
  asset: 'BTC',
  at: NOON - 1000,
  amount: 200,
  notional: null,
  ...c,
});

describe('the book of fired totals', () => {
  it("reads the users it lacks in one read, then answers each user's day and last trade per asset", async () => {
    const { book, reads } = setUp([
      { userId: 'u1', id: 1, asset: 'BTC', at: MIDNIGHT - 3 * 3_600_000, cost: 500 },
      { userId: 'u1', id: 2, asset: 'ETH', at: MIDNIGHT + 3_600_000, cost: 199.7 },
      { userId: 'u1', id: 3, asset: 'BTC', at: MIDNIGHT + 2 * 3_600_000, cost: 200 },
      { userId: 'u2', id: 4, asset: 'SOL', at: MIDNIGHT + 3_600_000, cost: 50 },
    ]);
    expect(book.totals('u1', 'BTC', MIDNIGHT)).toBeUndefined();
    await book.hold(['u1', 'u2', 'u1']);
    await book.hold(['u2', 'u1']);
    expect(reads).toEqual([['u1', 'u2']]);
    // Yesterday's order counts for the cooldown, not for today's budget.
    expect(book.totals('u1', 'BTC', MIDNIGHT)).toEqual({
      spent: 399.7,
      lastOnAsset: new Date(MIDNIGHT + 2 * 3_600_000),
    });
    expect(book.totals('u1', 'XRP', MIDNIGHT)).toEqual({ spent: 399.7, lastOnAsset: null });
    // The decision being checked and those claimed ahead of it are left out.
    expect(book.totals('u1', 'BTC', MIDNIGHT, [3, 2])).toEqual({
      spent: 0,
      lastOnAsset: new Date(MIDNIGHT - 3 * 3_600_000),
    });
    expect(book.totals('u2', 'SOL', MIDNIGHT)?.spent).toBe(50);
  });

  it("keeps the ledger's sums of older fills apart from every decision it hears of", async () => {
    const { book } = setUp([
      // Fired before midnight, and fired since, each side summed; the latest time of each.
      { userId: 'u1', id: null, asset: 'BTC', at: MIDNIGHT - 60_000, cost: 400 },
      { userId: 'u1', id: null, asset: 'BTC', at: MIDNIGHT + 60_000, cost: 250.5 },
      { userId: 'u1', id: null, asset: 'ETH', at: MIDNIGHT + 120_000, cost: 100 },
      { userId: 'u1', id: 5, asset: 'ETH', at: NOON - 1000, cost: 200 },
    ]);
    await book.hold(['u1']);
    expect(book.totals('u1', 'BTC', MIDNIGHT)).toEqual({
      spent: 550.5,
      lastOnAsset: new Date(MIDNIGHT + 60_000),
    });
    book.apply(change({ id: 5, outcome: 'fired', asset: 'ETH', notional: 180 }));
    expect(book.totals('u1', 'ETH', MIDNIGHT)?.spent).toBe(530.5);
    // The next day, yesterday's sums count for the cooldown only.
    expect(book.totals('u1', 'BTC', MIDNIGHT + 86_400_000)).toEqual({
      spent: 0,
      lastOnAsset: new Date(MIDNIGHT + 60_000),
    });
  });

  it('counts a pending decision at its amount, a fill at its notional, and drops a skip', async () => {
    const { book } = setUp([]);
    await book.hold(['u1']);
    book.apply(change({ id: 7, outcome: 'pending' }));
    expect(book.totals('u1', 'BTC', MIDNIGHT)).toEqual({ spent: 200, lastOnAsset: new Date(NOON - 1000) });
    book.apply(change({ id: 7, outcome: 'fired', notional: 199.93 }));
    expect(book.totals('u1', 'BTC', MIDNIGHT)?.spent).toBe(199.93);
    book.apply(change({ id: 8, outcome: 'pending', asset: 'ETH', at: NOON }));
    book.apply(change({ id: 8, outcome: 'skipped' }));
    expect(book.totals('u1', 'ETH', MIDNIGHT)).toEqual({ spent: 199.93, lastOnAsset: null });
    // A proposal waiting for its answer costs nothing yet.
    book.apply(change({ id: 9, outcome: 'asking' }));
    expect(book.totals('u1', 'BTC', MIDNIGHT)?.spent).toBe(199.93);
    // A user the book does not hold is left to the next read.
    book.apply(change({ id: 10, outcome: 'fired', userId: 'u3', notional: 10 }));
    expect(book.follows('u3')).toBe(false);
    expect(book.totals('u3', 'BTC', MIDNIGHT)).toBeUndefined();
  });

  it('sums in cents: fills that meet a budget to the cent do not pass it', async () => {
    const { book } = setUp([]);
    await book.hold(['u1']);
    const fills = [45.7, 172.27, 193.36, 78.56, 151.4, 158.71];
    fills.forEach((notional, i) => book.apply(change({ id: i + 1, outcome: 'fired', notional })));
    // Summed as floats, these six fills pass a budget of 800 they meet to the cent.
    expect(fills.reduce((a, b) => a + b, 0)).toBeGreaterThan(800);
    expect(book.totals('u1', 'BTC', MIDNIGHT)?.spent).toBe(800);
  });

  it('applies a change heard while the read is under way after the read, whatever the read saw', async () => {
    const ledger: CountedDecision[] = [{ userId: 'u1', id: 1, asset: 'BTC', at: NOON - 5000, cost: 200 }];
    const { book, hold } = setUp(ledger);
    const release = hold();
    const reading = book.hold(['u1']);
    expect(book.follows('u1')).toBe(true);
    // Settled in another process after the read took its rows: a fill, and a skip.
    book.apply(change({ id: 1, outcome: 'fired', notional: 150 }));
    book.apply(change({ id: 2, outcome: 'pending', asset: 'ETH' }));
    book.apply(change({ id: 2, outcome: 'skipped', asset: 'ETH' }));
    // A second signal's decisions wait for the same read.
    const second = book.hold(['u1']);
    release();
    await Promise.all([reading, second]);
    expect(book.totals('u1', 'ETH', MIDNIGHT)).toEqual({ spent: 150, lastOnAsset: null });
  });

  it('reads a user again after ten minutes, and forgets what is older than two days', async () => {
    const ledger: CountedDecision[] = [
      { userId: 'u1', id: 1, asset: 'BTC', at: NOON - BOOK_REACH_MS + 60_000, cost: 100 },
    ];
    const { book, reads, advance, hold: gate } = setUp(ledger);
    await book.hold(['u1']);
    expect(book.totals('u1', 'BTC', 0)?.lastOnAsset).toEqual(new Date(NOON - BOOK_REACH_MS + 60_000));
    // Written by a process whose bus message this one never heard.
    ledger.push({ userId: 'u1', id: 2, asset: 'ETH', at: NOON + 1000, cost: 300 });
    advance(BOOK_REREAD_MS - 1);
    await book.hold(['u1']);
    expect(reads).toHaveLength(1);
    expect(book.totals('u1', 'BTC', 0)).toEqual({ spent: 0, lastOnAsset: null });
    advance(1);
    const release = gate();
    // The read again is not waited for: the figures held are used, and kept current, until it is in.
    await book.hold(['u1']);
    expect(reads).toHaveLength(2);
    book.apply(change({ id: 3, outcome: 'pending', asset: 'ETH', at: NOON + 2000 }));
    expect(book.totals('u1', 'ETH', MIDNIGHT)).toEqual({ spent: 200, lastOnAsset: new Date(NOON + 2000) });
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(book.totals('u1', 'ETH', MIDNIGHT)).toEqual({ spent: 500, lastOnAsset: new Date(NOON + 2000) });
  });

  it('holds nobody after a failed read: the ledger answers their checks', async () => {
    const book = new FiredBook(
      () => Promise.reject(new Error('down')),
      () => NOON,
    );
    await expect(book.hold(['u1'])).rejects.toThrow('down');
    expect(book.follows('u1')).toBe(false);
    expect(book.totals('u1', 'BTC', MIDNIGHT)).toBeUndefined();
  });
});
