import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggable } from '../../server/plugins/errors';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/** Ids are bounded where requests come in: an out-of-range one is a 4xx, never a failed query. */
describe.each(dbTargets())('ids and limits at the edge on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let auth: { authorization: string };
  beforeAll(async () => {
    t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000' });
    auth = await signUpAndLogIn(t.app, 'edgar');
  });
  afterAll(() => t.close());

  it('answers 422, not 500, for a signal id beyond the database bigint', async () => {
    for (const id of ['9223372036854775807', '99999999999999999999999']) {
      const res = await t.app.inject({ url: `/api/rules/ledger?signal_id=${id}`, headers: auth });
      expect(res.statusCode, id).toBe(422);
    }
    const ok = await t.app.inject({ url: '/api/rules/ledger?signal_id=922337203685477580', headers: auth });
    expect(ok.statusCode).toBe(200);
  });

  it('answers 401, not 500, for a signed token whose sub or sid is not a uuid', async () => {
    const me = await t.app.inject({ url: '/api/users/me', headers: auth });
    const userId = me.json<{ id: string }>().id;
    for (const claims of [
      { userId: 'not-a-uuid', role: 'user' as const, familyId: crypto.randomUUID() },
      { userId, role: 'user' as const, familyId: "1' or '1'='1" },
    ]) {
      const token = await t.app.accessTokens.sign(claims);
      const res = await t.app.inject({
        url: '/api/users/me',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode, JSON.stringify(claims)).toBe(401);
    }
  });

  it('limits POST /api/orders/preview like orders: 320 at once are not all answered', async () => {
    const body = { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 100 };
    const answers = await Promise.all(
      Array.from({ length: 320 }, () =>
        t.app.inject({ method: 'POST', url: '/api/orders/preview', headers: auth, payload: body }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 200).length).toBeLessThanOrEqual(300);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(20);
  });

  it("logs a failed query's SQL without its parameters or its cause's values", () => {
    const cause = Object.assign(new Error('value "9223372036854775808" is out of range for type bigint'), {
      code: '22003',
    });
    const err = new Error('Failed query: select * from t where id = $1\nparams: ann@example.com,secret', {
      cause,
    });
    const logged = loggable(err) as Error;
    expect(logged.message).toBe('Failed query: select * from t where id = $1\nparams: (not logged)');
    expect(JSON.stringify({ m: logged.message, s: logged.stack, c: logged.cause })).not.toMatch(
      /ann@example|secret|9223372036854775808/,
    );
    expect(logged.cause).toEqual({ name: 'Error', code: '22003' });
  });
});
