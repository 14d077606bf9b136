import { Health } from '../contracts/health';
import type { ApiClient } from './api/client';
import { every, type Clock } from './clock';
import type { ConnectionStore } from './stores/connection';

export const HEALTH_POLL_MS = 10_000;

/** Asks `GET /healthz` once and records the answer; resolves to whether the server answered. */
export async function checkHealth(api: ApiClient, connection: ConnectionStore): Promise<boolean> {
  try {
    // A degraded server answers 503 with the same body: it still answered.
    const parsed = Health.safeParse(await api.send('/healthz', { acceptErrors: true }));
    if (parsed.success) {
      connection.markAnswered(parsed.data);
      return true;
    }
  } catch {
    // No answer at all (network down, server stopped).
  }
  connection.markUnreachable();
  return false;
}

/** Checks now and then every {@link HEALTH_POLL_MS}; the returned disposer stops polling. */
export function startHealthPolling(api: ApiClient, connection: ConnectionStore, clock: Clock): () => void {
  void checkHealth(api, connection);
  return every(clock, HEALTH_POLL_MS, () => void checkHealth(api, connection));
}
