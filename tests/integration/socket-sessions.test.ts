import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { refreshTokens, users } from '../../server/db/schema';
import { SESSION_CLOSE_CODE } from '../../server/plugins/session-watch';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient } from './auth.support';

/** Resolves with the close code and reason, or 'open' if the socket is still open after `ms`. */
function closed(ws: WebSocket, ms = 3000): Promise<{ code: number; reason: string } | 'open'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('open'), ms);
    ws.once('close', (code: number, reason: Buffer) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

describe.each(dbTargets())('positions sockets end with their sign-in on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let base = '';
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(target);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    base = `ws://127.0.0.1:${addr.port}/api/ws/positions`;
  });
  afterAll(() => t?.close());

  const signedIn = async (remember = false) => {
    n += 1;
    const client = new AuthClient(t.app);
    await client.signup(`sock${n}`, 'correct horse battery');
    await client.login(`sock${n}`, 'correct horse battery', remember);
    if (client.token === null) throw new Error('no token');
    return client;
  };
  const open = async (client: AuthClient) => {
    const ticket = await client.send('POST', '/ws/ticket');
    const ws = new WebSocket(`${base}?ticket=${ticket.json<{ ticket: string }>().ticket}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return ws;
  };

  it('refuses a ticket issued before logout', async () => {
    const client = await signedIn();
    const ticket = (await client.send('POST', '/ws/ticket')).json<{ ticket: string }>().ticket;
    expect((await client.send('POST', '/auth/logout')).statusCode).toBeLessThan(300);
    const ws = new WebSocket(`${base}?ticket=${ticket}`);
    const outcome = await new Promise<string>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(`refused ${res.statusCode ?? 0}`));
      ws.once('error', () => resolve('refused'));
      ws.once('open', () => {
        ws.once('close', () => resolve('closed at once'));
        setTimeout(() => resolve('open'), 500);
      });
    });
    expect(outcome).not.toBe('open');
    ws.terminate();
  });

  it('closes the socket at logout, with a reason the client can act on', async () => {
    const client = await signedIn();
    const ws = await open(client);
    const other = await open(await signedIn());
    const ending = closed(ws);
    expect((await client.send('POST', '/auth/logout')).statusCode).toBeLessThan(300);
    expect(await ending).toEqual({ code: SESSION_CLOSE_CODE, reason: 'signed out' });
    // Someone else's socket is not touched.
    expect(await closed(other, 300)).toBe('open');
    other.close();
  });

  it('closes the sockets of the other sign-ins when the password changes, and keeps the asking one', async () => {
    const here = await signedIn();
    const there = new AuthClient(t.app);
    await there.login(`sock${n}`, 'correct horse battery');
    const mine = await open(here);
    const theirs = await open(there);
    const ending = closed(theirs);
    const change = await here.send('POST', '/auth/change-password', {
      current_password: 'correct horse battery',
      new_password: 'another horse battery',
    });
    expect(change.statusCode, change.body).toBeLessThan(300);
    expect(await ending).toEqual({ code: SESSION_CLOSE_CODE, reason: 'signed out' });
    expect(await closed(mine, 300)).toBe('open');
    mine.close();
  });

  it('closes the socket of a revoked device, and keeps the one of the sign-in that asked', async () => {
    const client = await signedIn(true);
    const phone = new AuthClient(t.app);
    await phone.login(`sock${n}`, 'correct horse battery', true);
    const mine = await open(client);
    const phoneSocket = await open(phone);
    const phoneEnding = closed(phoneSocket);
    const revoked = await client.send('POST', '/auth/devices/revoke-all');
    expect(revoked.statusCode, revoked.body).toBeLessThan(300);
    expect(await phoneEnding).toEqual({ code: SESSION_CLOSE_CODE, reason: 'signed out' });
    expect(await closed(mine, 300)).toBe('open');
    mine.close();
  });

  it('the periodic check finds what another node changed: a disabled account and an ended sign-in close, the rest stay', async () => {
    const clients = [await signedIn(), await signedIn(), await signedIn()];
    const [disabled, ended, kept] = await Promise.all(clients.map((c) => open(c)));
    const ids = await Promise.all(
      clients.map(async (c) => (await c.send('GET', '/users/me')).json<{ id: string }>().id),
    );
    // Changed in the database alone, as another node would: no event tells this one.
    await t.database.db
      .update(users)
      .set({ disabledAt: sql`now()` })
      .where(eq(users.id, ids[0]!));
    await t.database.db
      .update(refreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(inArray(refreshTokens.userId, [ids[1]!]));
    const endings = [closed(disabled!), closed(ended!), closed(kept!, 500)];
    await t.app.sessionWatch.checkAll();
    expect(await Promise.all(endings)).toEqual([
      { code: SESSION_CLOSE_CODE, reason: 'account disabled' },
      { code: SESSION_CLOSE_CODE, reason: 'signed out' },
      'open',
    ]);
    kept!.close();
  });
});
