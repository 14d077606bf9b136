import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { AUTH_MESSAGES } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import type { UsersService } from '../users/users.service';
import type { Mailer } from './mailer';
import { PasswordService } from './password.service';
import type { SessionsService } from './sessions.service';

describe('forgot-password', () => {
  it('answers before looking the address up, so a known address takes no longer than an unknown one', async () => {
    const looked: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const users = {
      findByEmail: async (email: string) => {
        looked.push(email);
        await held; // a slow database
        return undefined;
      },
    } as unknown as UsersService;
    const errors: unknown[] = [];
    const service = new PasswordService({} as Db, {
      users,
      sessions: {} as SessionsService,
      mailer: {} as Mailer,
      publicUrl: 'http://127.0.0.1',
      log: { error: (e: unknown) => errors.push(e) } as unknown as FastifyBaseLogger,
    });
    const answer = await Promise.race([
      service.forgot('rita@example.com'),
      new Promise((resolve) => setTimeout(() => resolve('waited'), 100)),
    ]);
    expect(answer).toBe(AUTH_MESSAGES.forgot);
    expect(looked).toEqual(['rita@example.com']);
    let idle = false;
    const done = service.idle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(idle).toBe(false);
    release();
    await done;
    expect(errors).toEqual([]);
  });
});
