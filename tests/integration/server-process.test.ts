import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { users } from '../../server/db/schema';

const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function run(env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(tsx, ['server/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exit };
}

async function waitForHealth(port: number, ms = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/healthz`);
      if (res.ok) return (await res.json()) as Record<string, unknown>;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy');
}

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
    const health = await waitForHealth(port);
    expect(health).toMatchObject({ status: 'ok', db: 'pglite' });
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);

    // Between runs, write a row the way an earlier session would have left it.
    const db = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
    await db.db.insert(users).values({ email: 'kept@example.com', username: 'kept' });
    await db.close();

    const second = run(env);
    expect(await waitForHealth(port)).toMatchObject({ status: 'ok' });
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);

    const after = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
    expect((await after.db.select().from(users)).map((u) => u.username)).toEqual(['kept']);
    await after.close();
  }, 90_000);
});
