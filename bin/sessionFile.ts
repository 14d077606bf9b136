import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** What the CLI keeps between runs: the server, the access token and the refresh cookie. */
export const SavedSession = z.object({
  server: z.string(),
  accessToken: z.string().nullable(),
  cookies: z.record(z.string(), z.string()),
});
export type SavedSession = z.infer<typeof SavedSession>;

/** `$SIGNAL_CONSOLE_SESSION`, or `~/.config/signal-console/session.json`. */
export function defaultSessionPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.SIGNAL_CONSOLE_SESSION ?? path.join(homedir(), '.config', 'signal-console', 'session.json');
}

/** The saved session for `server`, or an empty one (another server's session is not used). */
export async function loadSession(file: string, server: string): Promise<SavedSession> {
  const empty: SavedSession = { server, accessToken: null, cookies: {} };
  try {
    const parsed = SavedSession.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success && parsed.data.server === server ? parsed.data : empty;
  } catch {
    return empty;
  }
}

/**
 * Whether a run changed the session it read (a token rotated, a sign-in or a sign-out): only then does it
 * write the file, so that a run that only read leaves alone what another run wrote meanwhile.
 */
export function sessionChanged(read: SavedSession, now: SavedSession): boolean {
  if (read.accessToken !== now.accessToken) return true;
  const before = Object.entries(read.cookies);
  const after = Object.entries(now.cookies);
  return before.length !== after.length || after.some(([name, value]) => read.cookies[name] !== value);
}

/**
 * Writes the session readable by its owner only (mode 0600); an empty session removes the file. The file
 * is replaced whole (written beside it, then renamed over it): a run reading it at the same moment sees
 * the old session or the new one, never a part of one.
 */
export async function saveSession(file: string, session: SavedSession): Promise<void> {
  if (session.accessToken === null && Object.keys(session.cookies).length === 0) {
    await rm(file, { force: true });
    return;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const written = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(written, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
    await chmod(written, 0o600); // whatever the umask
    await rename(written, file);
  } catch (err) {
    await rm(written, { force: true });
    throw err;
  }
}
