import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TICKET_LIMIT } from '../../server/modules/auth/socket-tickets-plugin';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, signedInClient } from './auth.support';

const PASSWORD = 'correct horse battery';

/** Another browser of the same account: its own address, the same access token. */
function sameAccount(app: FastifyInstance, c: AuthClient): AuthClient {
  const other = new AuthClient(app);
  other.token = c.token;
  return other;
}

describe.each(dbTargets())('socket tickets are limited per account on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  const ticket = (c: AuthClient) => c.send('POST', '/ws/ticket');

  it(`gives an account ${TICKET_LIMIT.perAccount} a minute from any of its browsers, then a 429 that says when`, async () => {
    const c = await signedInClient(t.app, 'tickets', PASSWORD);
    const browsers = [c, sameAccount(t.app, c), sameAccount(t.app, c)];
    // Asked all at once, from three addresses: exactly the allowance is issued.
    const answers = await Promise.all(
      Array.from({ length: TICKET_LIMIT.perAccount + 10 }, (_, i) => ticket(browsers[i % 3] ?? c)),
    );
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((s) => s === 200)).toHaveLength(TICKET_LIMIT.perAccount);
    expect(codes.filter((s) => s === 429)).toHaveLength(10);
    const refused = answers.find((a) => a.statusCode === 429);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused?.json<{ detail: string }>().detail).toMatch(
      /^Too many requests\. Please try again in \d+ s\.$/,
    );

    // Another account is not held back by this one.
    const other = await signedInClient(t.app, 'tickets2', PASSWORD);
    expect((await ticket(other)).statusCode).toBe(200);
  });
});
