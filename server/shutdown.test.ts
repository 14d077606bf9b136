import { EventEmitter } from 'node:events';
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { exitOnSignals, signalStatus } from './shutdown';

interface Harness {
  app: FastifyInstance;
  signals: EventEmitter;
  lines: Record<string, unknown>[];
  exits: number[];
  exited: Promise<number>;
  base: string;
}

const open: FastifyInstance[] = [];
const releases: (() => void)[] = [];
/** A close hook that stays pending until the test is over (a flush that never completes). */
const stuck = () => new Promise<void>((resolve) => releases.push(resolve));
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  await Promise.all(open.splice(0).map((app) => app.close().catch(() => undefined)));
});

/** A listening app with a websocket route, stopped through `exitOnSignals` with a recorded exit. */
async function harness(
  opts: {
    deadlineMs?: number;
    socketGraceMs?: number;
    repeatWindowMs?: number;
    requestGraceMs?: number;
    onClose?: () => Promise<void>;
  } = {},
): Promise<Harness> {
  const lines: Record<string, unknown>[] = [];
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    forceCloseConnections: 'idle',
  });
  await app.register(websocket);
  app.get('/ws', { websocket: true }, () => undefined);
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true };
  });
  if (opts.onClose) app.addHook('onClose', opts.onClose);
  await app.listen({ port: 0, host: '127.0.0.1' });
  open.push(app);
  const signals = new EventEmitter();
  const exits: number[] = [];
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  exitOnSignals(app, {
    deadlineMs: opts.deadlineMs ?? 5_000,
    socketGraceMs: opts.socketGraceMs ?? 300,
    repeatWindowMs: opts.repeatWindowMs ?? 200,
    ...(opts.requestGraceMs === undefined ? {} : { requestGraceMs: opts.requestGraceMs }),
    signals,
    activeResources: () => ['FSReqCallback', 'TCPSocketWrap'],
    exit: (code) => {
      exits.push(code);
      resolveExit(code);
    },
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { app, signals, lines, exits, exited, base: `ws://127.0.0.1:${port}/ws` };
}

function connect(url: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(url);
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('error', reject);
  });
}

describe('stopping on a signal', () => {
  it('closes websockets with 1001, cuts a peer that never answers, and exits 0', async () => {
    const h = await harness({ socketGraceMs: 300 });
    const polite = await connect(h.base);
    const deaf = await connect(h.base);
    // A peer that stopped reading (a sleeping laptop): it never answers the close frame.
    (deaf.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const started = performance.now();
    h.signals.emit('SIGTERM');
    expect(await polite.closed).toBe(1001);
    expect(await h.exited).toBe(0);
    // Cut after the grace, not after ws's own 30 s closing timeout.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(h.app.server.listening).toBe(false);
    expect(h.lines.map((l) => l.msg)).toContain('stopped');
  });

  it('lets a request running at the signal finish, then closes its keep-alive connection at once', async () => {
    const h = await harness({ deadlineMs: 20_000, requestGraceMs: 10_000 });
    const agent = new http.Agent({ keepAlive: true });
    const answer = new Promise<number | undefined>((resolve, reject) => {
      http
        .get(h.base.replace('ws:', 'http:').replace('/ws', '/slow'), { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        })
        .on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    h.signals.emit('SIGTERM');
    expect(await answer).toBe(200);
    expect(await h.exited).toBe(0);
    // Not held until the keep-alive timeout, nor until the request grace.
    expect(performance.now() - started).toBeLessThan(2_000);
    agent.destroy();
  });

  it('logs what is still pending at the deadline and exits 1', async () => {
    const h = await harness({ deadlineMs: 1_000, onClose: stuck });
    const started = performance.now();
    h.signals.emit('SIGINT');
    expect(await h.exited).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(h.lines.find((l) => l.level === 50)).toMatchObject({
      pending: ['FSReqCallback', 'TCPSocketWrap'],
      deadlineMs: 1_000,
    });
    expect(h.exits).toEqual([1]);
  });

  it('exits at once on a later second signal, with the status of that signal; a repeat within the window is the same stop', async () => {
    const h = await harness({ deadlineMs: 60_000, onClose: stuck });
    h.signals.emit('SIGTERM');
    // The same Ctrl+C delivered twice (the terminal, then npm forwarding it) is one stop.
    h.signals.emit('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.exits).toEqual([]);
    h.signals.emit('SIGINT');
    expect(h.exits).toEqual([signalStatus('SIGINT')]);
    expect(signalStatus('SIGINT')).toBe(130);
    expect(signalStatus('SIGTERM')).toBe(143);
    // Further signals find the handlers still there and do nothing more.
    expect(h.signals.listenerCount('SIGTERM')).toBe(1);
    h.signals.emit('SIGTERM');
    expect(h.exits).toEqual([130]);
  });
});
