import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';

const pglite = useDatabase(dbTargets()[0]);
/** Short, so the test does not wait the production 30 s. */
const TIMEOUT_MS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a request body that dribbles in', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp(pglite, { MARKET_SIM_TICK_MS: '50' }, { requestTimeoutMs: TIMEOUT_MS });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is cut at the time-out with a 408, while an SSE stream and a socket opened with it stay up', async () => {
    // The long-lived ones first: their requests arrived whole at once.
    const sse = request({ host: '127.0.0.1', port, path: '/api/signals/stream' });
    let sseClosed = false;
    let sseBytes = 0;
    sse.on('response', (res) => {
      res.on('data', (chunk: Buffer) => (sseBytes += chunk.length));
      res.on('close', () => (sseClosed = true));
    });
    sse.end();
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws/prices`);
    let wsClosed = false;
    let wsFrames = 0;
    ws.on('message', () => (wsFrames += 1));
    ws.on('close', () => (wsClosed = true));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ op: 'subscribe', symbols: ['BTCUSDT'] }));

    // Headers at once, then one byte of a 200-byte body every 100 ms: 20 s if let be.
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    socket.write(
      'POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n',
    );
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    const closed = new Promise<number>((resolve) =>
      socket.once('close', () => resolve(Date.now() - started)),
    );
    socket.on('error', () => undefined);
    const dribble = setInterval(() => {
      if (!socket.destroyed) socket.write('a');
    }, 100);
    const outcome = await Promise.race([closed, sleep(5000).then(() => null)]);
    clearInterval(dribble);
    socket.destroy();

    expect(outcome, 'the slow request was never cut').not.toBeNull();
    expect(outcome ?? 0).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(outcome ?? 0).toBeLessThan(TIMEOUT_MS * 3);
    expect(answer.startsWith('HTTP/1.1 408')).toBe(true);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(
      JSON.stringify({ detail: 'The request took too long to arrive.' }),
    );

    // Well past the time-out, the stream and the socket are still open and still sending.
    await sleep(TIMEOUT_MS * 2);
    const [bytes, frames] = [sseBytes, wsFrames];
    await sleep(400);
    expect(sseClosed).toBe(false);
    expect(wsClosed).toBe(false);
    expect(sseBytes).toBeGreaterThan(0);
    expect(wsFrames).toBeGreaterThan(frames);
    expect(bytes).toBeGreaterThan(0);
    ws.close();
    sse.destroy();
  });
});
