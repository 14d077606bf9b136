import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { positionProtections, users } from '../../server/db/schema';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/**
 * Two servers on one database, as two processes: thirty replacements of one position's protection sent
 * to both at once leave one row and exactly its legs resting on the paper exchange: never two stops,
 * never a position closed because the other server's leg took the client id.
 */
describe.each(dbTargets())('protection on two nodes of one database on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let other: FastifyInstance;
  let auth: { authorization: string };
  let userId = '';

  beforeAll(async () => {
    t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000', NEWS_SOURCES: 'webhook' });
    other = await buildApp(t.config, { logger: false, database: t.database });
    await other.ready();
    auth = await signUpAndLogIn(t.app, 'twonodes');
    const [me] = await t.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.username, 'twonodes'));
    userId = me!.id;
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it('keeps one set of legs when both servers replace them thirty times at once', async () => {
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', amount: 1_000 },
    });
    expect(opened.statusCode, opened.body).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? t.app : other).inject({
          method: 'PUT',
          url: '/api/positions/BTCUSDT/protection',
          headers: auth,
          payload: { stop_loss_pct: 1 + i / 10, take_profit_pct: 3 },
        }),
      ),
    );
    // Every answer is the server's truth: set, or refused because the other server changed it first.
    for (const a of answers) expect([200, 409], a.body).toContain(a.statusCode);
    expect(answers.filter((a) => a.statusCode === 200).length).toBeGreaterThan(0);
    const rows = await t.database.db.select().from(positionProtections);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    // What rests on the paper exchange (read by a third reader of the ledger) is exactly the row's legs.
    const paper = new PaperExchange({
      repo: new LedgerRepo(t.database.db),
      marks: { price: () => undefined },
    });
    const resting = await paper.openConditionals(userId, 'BTCUSDT');
    expect(resting.map((o) => o.clientAlgoId).sort()).toEqual([row!.legs.sl!.cid, row!.legs.tp!.cid].sort());
    expect(resting.find((o) => o.type === 'STOP_MARKET')?.triggerPrice).toBe(
      new Intl.NumberFormat('en', { useGrouping: false, maximumFractionDigits: 8 }).format(
        Number(row!.stopLossPrice),
      ),
    );
    // And the position is still open: no server closed it over a refused leg.
    const positions = await t.app.inject({ url: '/api/positions', headers: auth });
    expect(positions.json()).toHaveLength(1);
  });
});
