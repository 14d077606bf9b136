import { performance } from 'node:perf_hooks';
import { Health } from '../../../src/contracts/health';
import { sleep } from './mode';

/** The server's `/api/healthz` (200 or 503, same body), or null when it does not answer. */
export async function readHealth(base: string): Promise<{ code: number; health: Health } | null> {
  try {
    const res = await fetch(`${base}/api/healthz`, { signal: AbortSignal.timeout(5_000) });
    return { code: res.status, health: Health.parse(await res.json()) };
  } catch {
    return null;
  }
}

/**
 * Asks `check` every `everyMs` until it answers true; resolves with the milliseconds that took, and
 * rejects with `what` after `timeoutMs`.
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(everyMs);
  }
}

/** Until `/api/healthz` lists a problem that starts with `phrase` (status degraded). */
export function untilDegraded(base: string, phrase: string, timeoutMs = 30_000): Promise<number> {
  return until(
    `healthz names "${phrase}"`,
    async () => {
      const h = await readHealth(base);
      return (
        h !== null && h.health.status === 'degraded' && h.health.degraded.some((d) => d.startsWith(phrase))
      );
    },
    timeoutMs,
  );
}

/** Until `/api/healthz` no longer lists any problem starting with `phrase`. */
export function untilCleared(base: string, phrase: string, timeoutMs = 30_000): Promise<number> {
  return until(
    `healthz stops naming "${phrase}"`,
    async () => {
      const h = await readHealth(base);
      return h !== null && !h.health.degraded.some((d) => d.startsWith(phrase));
    },
    timeoutMs,
  );
}
