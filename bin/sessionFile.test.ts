import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSession, saveSession, sessionChanged, type SavedSession } from './sessionFile';

const SERVER = 'http://127.0.0.1:8080';
const session = (n: number): SavedSession => ({
  server: SERVER,
  accessToken: `token-${n}-${'x'.repeat(2000)}`,
  cookies: { sc_refresh: `refresh-${n}` },
});

describe('the CLI session file', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sc-session-'));
    file = path.join(dir, 'session.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is never read half-written while another run saves it', async () => {
    await saveSession(file, session(0));
    // Runs of the CLI side by side: each reads the file at start and writes it at the end.
    const reads: Promise<SavedSession>[] = [];
    const writes: Promise<void>[] = [];
    for (let n = 1; n <= 40; n++) {
      writes.push(saveSession(file, session(n)));
      for (let k = 0; k < 5; k++) reads.push(loadSession(file, SERVER));
    }
    await Promise.all(writes);
    const seen = await Promise.all(reads);
    expect(seen.filter((s) => s.accessToken === null)).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // No temporary file is left beside it.
    expect(await readdir(dir)).toEqual(['session.json']);
  });

  it('tells a run whether it changed what it read', () => {
    const read = session(1);
    expect(sessionChanged(read, { ...read, cookies: { ...read.cookies } })).toBe(false);
    expect(sessionChanged(read, { ...read, accessToken: 'rotated' })).toBe(true);
    expect(sessionChanged(read, { ...read, cookies: { sc_refresh: 'rotated' } })).toBe(true);
    expect(sessionChanged(read, { ...read, cookies: {} })).toBe(true);
  });
});
