import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { freePort, startServerProcess as run, waitForHealth } from '../helpers/process';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the server process', () => {
  it('refuses a bad PORT with one clear line and a non-zero exit', async () => {
    const proc = run({ PORT: 'abc' });
    const code = await proc.exit;
    expect(code).not.toBe(0);
    const lines = proc.output().trim().split('\n');
    expect(lines).toEqual(['Invalid PORT="abc": expected an integer from 1 to 65535']);
  });

  it('serves on PORT with DATA_DIR, stops cleanly on SIGTERM and keeps its data for the next start', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-proc-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };

    const first = run(env);
    const health = await waitForHealth(`http://127.0.0.1:${port}`);
    expect(health).toMatchObject({ status: 'ok', db: 'pglite' });
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    // The data folder, the embedded database and the secrets key are the owner's alone.
    const loose: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      if (((await stat(dir)).mode & 0o077) !== 0) loose.push(dir);
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (((await stat(full)).mode & 0o077) !== 0) loose.push(full);
      }
    };
    await walk(dataDir);
    expect(loose).toEqual([]);

    // Between runs, write a row the way an earlier session would have left it.
    const db = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
    await db.db.insert(users).values({ email: 'kept@example.com', username: 'kept' });
    await db.close();

    const second = run(env);
    expect(await waitForHealth(`http://127.0.0.1:${port}`)).toMatchObject({ status: 'ok' });
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);

    const after = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
    expect((await after.db.select().from(users)).map((u) => u.username)).toEqual(['kept']);
    await after.close();
  }, 150_000);
});
