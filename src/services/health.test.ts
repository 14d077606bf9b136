import { describe, expect, it, vi } from 'vitest';
import type { Health } from '../contracts/health';
import { createApi } from './api';
import { HEALTH_POLL_MS, startHealthPolling } from './health';
import { createConnectionStore } from './stores/connection';
import { createSessionStore } from './stores/session';
import { createFakeClock } from './testing/fakeClock';
import { createFakeServer } from './testing/fakeServer';

const health: Health = {
  status: 'ok',
  degraded: [],
  db: 'pglite',
  dbOk: true,
  bus: 'memory',
  busOk: true,
  market: 'sim',
  news: ['replay'],
  exchange: 'paper',
  analyzer: 'local',
  payments: ['sandbox'],
  mail: 'outbox',
  standins: ['PGlite', 'simulated prices'],
  version: '0.1.0',
  uptimeSeconds: 3,
  role: 'all',
  leases: ['market-feed'],
};

function setup() {
  const server = createFakeServer();
  const clock = createFakeClock();
  const connection = createConnectionStore();
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: createSessionStore(),
    navigate: () => undefined,
  });
  return { server, clock, connection, api };
}

describe('health polling', () => {
  it('is Live after an answer, Connecting after a missed poll, and stops when disposed', async () => {
    const { server, clock, connection, api } = setup();
    let up = true;
    server.on('GET /healthz', () =>
      up ? { status: 200, body: health } : { status: 502, body: 'Bad Gateway' },
    );

    expect(connection.status.value).toBe('connecting');
    const stop = startHealthPolling(api.main, connection, clock);
    await vi.waitFor(() => expect(connection.status.value).toBe('live'));
    expect(connection.standins.value).toEqual(['PGlite', 'simulated prices']);

    up = false;
    clock.advance(HEALTH_POLL_MS - 1);
    expect(server.count('GET /healthz')).toBe(1);
    clock.advance(1);
    expect(server.count('GET /healthz')).toBe(2);
    await vi.waitFor(() => expect(connection.status.value).toBe('connecting'));

    stop();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(HEALTH_POLL_MS * 3);
    expect(server.count('GET /healthz')).toBe(2);
  });

  it('counts a degraded (503) health report as an answer', async () => {
    const { server, clock, connection, api } = setup();
    server.on('GET /healthz', () => ({ status: 503, body: { ...health, status: 'degraded', dbOk: false } }));
    const stop = startHealthPolling(api.main, connection, clock);
    await vi.waitFor(() => expect(connection.status.value).toBe('live'));
    expect(connection.health.value?.status).toBe('degraded');
    stop();
  });
});
