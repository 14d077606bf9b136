import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../server/db/client';
import { users } from '../server/db/schema';
import { LedgerRepo } from '../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../server/modules/trading/paper/paper-exchange';
import { SNAPSHOT_EVERY } from '../server/modules/trading/paper/snapshot';
import { report } from './lib/report';

/**
 * Loading a paper account with an empty exchange cache (as after a restart, or when another process
 * changed it), at 100, 1,000 and 10,000 ledger rows: from the latest snapshot, from a snapshot with the
 * most rows after it there can be (SNAPSHOT_EVERY - 1), and by replaying the whole ledger. The ledgers
 * are written through the exchange itself (orders both ways on two symbols, leverage now and then).
 */
const SIZES = [100, 1_000, 10_000];
const ROUNDS = Number(process.env.BENCH_LEDGER_ROUNDS ?? 15);

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** `BENCH_DATABASE_URL` runs it on Postgres (a fresh schema, dropped afterwards). */
const pgUrl = process.env.BENCH_DATABASE_URL;
const schema = `bench_ledger_${process.pid}`;
const database = await openDatabase(
  pgUrl ? { kind: 'postgres', url: pgUrl, schema, poolSize: 4 } : { kind: 'pglite-memory' },
);
report('ledger', pgUrl ? 'database_postgres' : 'database_pglite', 1, 'flag');
const marks = new Map([
  ['ETHUSDT', 3_000],
  ['BTCUSDT', 60_000],
]);
const exchange = (snapshotEvery?: number | null) =>
  new PaperExchange({
    repo: new LedgerRepo(database.db),
    marks: { price: (s) => marks.get(s) },
    snapshotEvery,
  });

/** Appends rows `from`..`to` (inclusive) to the account's ledger. */
async function write(ex: PaperExchange, user: string, from: number, to: number) {
  for (let seq = from; seq <= to; seq++) {
    if (seq === 1) {
      await ex.balance(user);
    } else if (seq % 50 === 0) {
      await ex.setLeverage(user, 'SOLUSDT', 5 + (seq % 20));
    } else {
      marks.set('ETHUSDT', 3_000 + ((seq * 37) % 200) - 100);
      await ex.placeMarketOrder(user, {
        symbol: seq % 3 === 0 ? 'BTCUSDT' : 'ETHUSDT',
        side: seq % 2 === 0 ? 'BUY' : 'SELL',
        quoteAmount: String(120 + (seq % 9) * 10),
        newClientOrderId: `b-${seq}`,
      });
    }
  }
}

/** Median time of a cold load, each round through a new exchange so that nothing is cached. */
async function coldLoad(user: string, snapshotEvery: number | null): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 2; i++) {
    const ex = exchange(snapshotEvery);
    const started = performance.now();
    await ex.balance(user);
    if (i >= 2) times.push(performance.now() - started); // two rounds to warm the JIT and the database
  }
  return median(times);
}

try {
  for (const size of SIZES) {
    const [row] = await database.db
      .insert(users)
      .values({ email: `ledger${size}@example.com`, username: `ledger${size}` })
      .returning({ id: users.id });
    const user = row!.id;
    const started = performance.now();
    await write(exchange(), user, 1, size);
    report('ledger', `write_ms_per_row_${size}`, (performance.now() - started) / size, 'ms');

    report('ledger', `cold_load_snapshot_${size}_rows`, await coldLoad(user, SNAPSHOT_EVERY), 'ms');
    report('ledger', `cold_load_full_replay_${size}_rows`, await coldLoad(user, null), 'ms');
    // The most a load ever replays after its snapshot (written without one, so none is taken).
    await write(exchange(null), user, size + 1, size + SNAPSHOT_EVERY - 1);
    report(
      'ledger',
      `cold_load_snapshot_${size}_rows_plus_${SNAPSHOT_EVERY - 1}`,
      await coldLoad(user, SNAPSHOT_EVERY),
      'ms',
    );
  }
} finally {
  if (pgUrl) await database.db.execute(sql.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  await database.close();
}
