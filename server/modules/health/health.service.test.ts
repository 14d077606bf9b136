import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import type { Bus } from '../../plugins/bus';
import { type Components, HealthService } from './health.service';

function setup() {
  const state = { dbOk: true, busOk: true, now: 1_000_000, pings: 0, leases: ['market-feed'] };
  const database = {
    driver: 'pglite',
    ping: async () => {
      state.pings++;
      return state.dbOk;
    },
  } as unknown as Database;
  const bus = { kind: 'memory', healthy: () => state.busOk } as unknown as Bus;
  const components: Components = {
    market: 'sim',
    news: ['replay'],
    exchange: 'paper',
    analyzer: 'local',
    payments: ['sandbox-card', 'sandbox-crypto'],
    mail: 'outbox',
  };
  const health = new HealthService({
    database,
    bus,
    components,
    version: '1.2.3',
    leases: () => state.leases,
    now: () => state.now,
    probeEveryMs: 2000,
  });
  const body = () => {
    const a = health.answer();
    if (a === null) throw new Error('no answer yet');
    return { status: a.status, health: JSON.parse(a.body) as Record<string, unknown> };
  };
  return { state, health, body };
}

describe('HealthService.answer', () => {
  it('has no answer before the first probe, then the same answer as snapshot()', async () => {
    const { health, body } = setup();
    expect(health.answer()).toBeNull();
    const snap = await health.snapshot();
    expect(body()).toEqual({ status: 200, health: snap });
    expect(snap).toMatchObject({ status: 'ok', dbOk: true, leases: ['market-feed'], uptimeSeconds: 0 });
  });

  it('is never older than the state it reports, though it is serialised once per change', async () => {
    const { state, health, body } = setup();
    await health.snapshot();
    const first = health.answer();
    expect(health.answer()).toBe(first); // nothing changed: the same serialised body

    state.busOk = false;
    expect(body()).toMatchObject({
      status: 503,
      health: { busOk: false, degraded: ['event bus unreachable'] },
    });
    state.busOk = true;

    let stalled = false;
    health.watch('market', () => (stalled ? 'market feed stalled' : null));
    expect(body().health.degraded).toEqual([]);
    stalled = true;
    expect(body()).toMatchObject({
      status: 200,
      health: { status: 'degraded', degraded: ['market feed stalled'] },
    });
    stalled = false;

    health.report('market', 'binance');
    expect(body().health).toMatchObject({ market: 'binance', status: 'ok' });
    expect(body().health.standins).not.toContain('simulated prices');
    // Rules' stops and targets on live accounts: off until said otherwise, then as reported.
    expect(body().health.livePriceTriggers).toBe(false);
    health.report('livePriceTriggers', true);
    expect(body().health.livePriceTriggers).toBe(true);

    state.leases = [];
    expect(body().health.leases).toEqual([]);

    state.now += 1500;
    expect(body().health.uptimeSeconds).toBe(2);
  });

  it('probes the database in the background once the last probe is old, and reports it down', async () => {
    const { state, health, body } = setup();
    await health.snapshot();
    expect(state.pings).toBe(1);
    health.answer();
    expect(state.pings).toBe(1);
    state.dbOk = false;
    state.now += 2001;
    expect(body().status).toBe(200); // the probe runs in the background; the last result answers
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.pings).toBe(2);
    expect(body()).toMatchObject({
      status: 503,
      health: { dbOk: false, degraded: ['database unreachable'] },
    });
  });
});
