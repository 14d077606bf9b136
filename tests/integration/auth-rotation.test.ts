import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS } from '../../src/contracts/auth';
import type { Database } from '../../server/db/client';
import { refreshTokens, users } from '../../server/db/schema';
import { sha256 } from '../../server/modules/auth/crypto';
import {
  ROTATION_GRACE_MS,
  SessionsService,
  type IssuedSession,
} from '../../server/modules/auth/sessions.service';
import { createAccessTokens } from '../../server/plugins/auth-guard';
import { dbTargets, useDatabase } from '../helpers/db';

/** A gate a test opens by hand: the first `wait` holds until `open`, later ones pass. */
function gate() {
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const opened = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  let armed = true;
  return {
    arrived,
    open: () => release(),
    async wait() {
      if (!armed) return;
      armed = false;
      reached();
      await opened;
    },
  };
}

/** Settles a promise into its value or its error detail, so racing calls can be compared afterwards. */
async function settle(p: Promise<IssuedSession>): Promise<IssuedSession | string> {
  try {
    return await p;
  } catch (err) {
    return (err as { detail?: string }).detail ?? 'error';
  }
}

/** A password sign-in, as the login route records it. */
const PASSWORD_SIGN_IN = { method: 'password', identityId: null, confirms: true } as const;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dbTargets())('refresh rotation under concurrency on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let userId = '';
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let hold: ReturnType<typeof gate> | null = null;
  const roleOf = async () => 'user' as const;
  const service = () =>
    new SessionsService(database.db, createAccessTokens(randomBytes(32)), () => new Date(clock), {
      familyLocked: async () => hold?.wait(),
    });

  beforeAll(async () => {
    database = await target.open();
    const [row] = await database.db
      .insert(users)
      .values({ email: 'r@example.com', username: 'rotor' })
      .returning({ id: users.id });
    userId = row?.id ?? '';
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  const live = async (token: string) => {
    const [row] = await database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(token)));
    return row !== undefined && row.revokedAt === null;
  };
  const liveInFamily = async (token: string) => {
    const [row] = await database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(token)));
    const family = await database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.familyId, row?.familyId ?? ''));
    return family.filter((r) => r.revokedAt === null).length;
  };

  it('lets two tabs refresh the same token at once: both stay signed in, the family lives', async () => {
    const s = service();
    const start = await s.issue({ id: userId, role: 'user' }, null, PASSWORD_SIGN_IN);
    const [a, b] = await Promise.all([
      settle(s.refresh(start.refreshToken, roleOf)),
      settle(s.refresh(start.refreshToken, roleOf)),
    ]);
    expect(typeof a).toBe('object');
    expect(typeof b).toBe('object');
    const [ta, tb] = [a, b].map((x) => (x as IssuedSession).refreshToken);
    expect(ta).not.toBe(tb);
    expect(await live(ta ?? '')).toBe(true);
    expect(await live(tb ?? '')).toBe(true);
  });

  it('still revokes the family when the rotated token comes back after the grace', async () => {
    const s = service();
    const start = await s.issue({ id: userId, role: 'user' }, null, PASSWORD_SIGN_IN);
    const next = await s.refresh(start.refreshToken, roleOf);
    const sibling = await s.refresh(start.refreshToken, roleOf);
    clock += ROTATION_GRACE_MS + 1;
    await expect(s.refresh(start.refreshToken, roleOf)).rejects.toMatchObject({
      detail: AUTH_DETAILS.refreshReused,
    });
    expect(await live(next.refreshToken)).toBe(false);
    expect(await live(sibling.refreshToken)).toBe(false);
    await expect(s.refresh(next.refreshToken, roleOf)).rejects.toMatchObject({
      detail: AUTH_DETAILS.invalidRefresh,
    });
  });

  /** A family with a rotated token (past its grace) and its live successor. */
  async function rotatedFamily(s: SessionsService) {
    const start = await s.issue({ id: userId, role: 'user' }, null, PASSWORD_SIGN_IN);
    const current = await s.refresh(start.refreshToken, roleOf);
    clock += ROTATION_GRACE_MS + 1;
    return { stolen: start.refreshToken, current: current.refreshToken };
  }

  it('rotation first, replay during it: the replay revokes the successor the rotation inserted', async () => {
    const s = service();
    const { stolen, current } = await rotatedFamily(s);
    hold = gate();
    const rotation = settle(s.refresh(current, roleOf));
    await hold.arrived;
    const replay = settle(s.refresh(stolen, roleOf));
    await pause(50);
    hold.open();
    const [rotated, replayed] = await Promise.all([rotation, replay]);
    hold = null;
    expect(replayed).toBe(AUTH_DETAILS.refreshReused);
    expect(typeof rotated).toBe('object');
    expect(await live((rotated as IssuedSession).refreshToken)).toBe(false);
    expect(await liveInFamily(current)).toBe(0);
  });

  it('replay first, rotation during it: the rotation is refused and nothing in the family lives', async () => {
    const s = service();
    const { stolen, current } = await rotatedFamily(s);
    hold = gate();
    const replay = settle(s.refresh(stolen, roleOf));
    await hold.arrived;
    const rotation = settle(s.refresh(current, roleOf));
    await pause(50);
    hold.open();
    const [replayed, rotated] = await Promise.all([replay, rotation]);
    hold = null;
    expect(replayed).toBe(AUTH_DETAILS.refreshReused);
    expect(rotated).toBe(AUTH_DETAILS.invalidRefresh);
    expect(await liveInFamily(current)).toBe(0);
  });

  it('a sign-out of every session during a rotation also revokes the token that rotation inserts', async () => {
    const s = service();
    const start = await s.issue({ id: userId, role: 'user' }, null, PASSWORD_SIGN_IN);
    hold = gate();
    const rotation = settle(s.refresh(start.refreshToken, roleOf));
    await hold.arrived;
    const revoke = s.revokeOthers(userId, null);
    await pause(50);
    hold.open();
    const [rotated] = await Promise.all([rotation, revoke]);
    hold = null;
    if (typeof rotated === 'object') expect(await live(rotated.refreshToken)).toBe(false);
    expect(await liveInFamily(start.refreshToken)).toBe(0);
  });
});
