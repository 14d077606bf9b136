import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

/**
 * A hostile client on the unauthenticated price socket: it sends 10,000 subscribe requests naming 200
 * unknown symbols each, as fast as it can. The server answers a bounded number of frames, closes the
 * socket with 1008, and keeps answering everyone else meanwhile.
 */
describe('price socket under a flood of requests', () => {
  let t: TestApp;
  let port = 0;

  beforeAll(async () => {
    t = await startTestApp(useDatabase(dbTargets()[0]));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    port = addr.port;
  });
  afterAll(() => t.close());

  it('answers a bounded number of frames, closes the flooding socket, and healthz stays fast', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws/prices`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    let frames = 0;
    ws.on('message', () => {
      frames += 1;
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const junk = JSON.stringify({
      op: 'subscribe',
      symbols: Array.from({ length: 200 }, (_, i) => `JUNK${i}USDT`),
    });

    const latencies: number[] = [];
    const probe = (async () => {
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/api/healthz`);
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
      }
    })();
    const started = performance.now();
    for (let i = 0; i < 10_000 && ws.readyState === WebSocket.OPEN; i++) ws.send(junk);

    expect(await closed).toBe(1008);
    const seconds = (performance.now() - started) / 1000;
    await probe;
    // hello, the burst of 20 answered requests, what the 10/s rate refilled while the flood lasted, and
    // one "too many" notice a second: a few dozen frames where 2,000,000 would have been sent before.
    expect(frames).toBeLessThanOrEqual(1 + 20 + Math.ceil(seconds * 10) + Math.ceil(seconds) + 1);
    expect(Math.max(...latencies)).toBeLessThan(2000);
  });
});
