import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Signal, StreamStatus } from '../../src/contracts/signals';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import { SignalStream, type StreamSink } from '../../server/modules/news/signal-stream';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { TOKEN, ingest, item, openSse } from './news.support';

const pglite = useDatabase(dbTargets()[0]);

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/signals/stream`;
}

describe.each(dbTargets())('signal stream over HTTP (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp(target, { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
    url = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends status on connect, then analyzing and completed for each signal, each frame with an id', async () => {
    const sse = await openSse(url);
    expect(sse.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(sse.res.headers['cache-control']).toContain('no-cache');
    await sse.waitFor((f) => f.length >= 1);
    const [status] = sse.statuses();
    expect(status).toMatchObject({
      connected: true,
      analyzer: 'local',
      heartbeat_ms: 15_000,
      resumed: 0,
      sources: [{ name: 'webhook', state: 'live' }],
    });
    expect(sse.frames[0]?.id).toMatch(/^\d+$/);

    await ingest(t.app, item('Robinhood lists PEPE and WIF for US customers'));
    await sse.waitFor(() => sse.signals().length >= 2);
    const [analyzing, completed] = sse.signals();
    expect(analyzing?.analysis.status).toBe('analyzing');
    expect(completed?.analysis.status).toBe('completed');
    expect(completed?.id).toBe(analyzing?.id);
    const ids = sse.frames.map((f) => Number(f.id));
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(ids[2]).toBeGreaterThan(ids[1] ?? Infinity);
    sse.close();
  });

  it('resumes after Last-Event-ID with the missed signals from the store, at most 50', async () => {
    const first = await openSse(url);
    await ingest(t.app, item('Gnosis chain completes its hard fork without downtime'));
    await first.waitFor(() => first.signals().some((s) => s.analysis.status === 'completed'));
    const lastId = first.frames.at(-1)?.id ?? '';
    first.close();

    const missed = Array.from({ length: 60 }, (_, i) =>
      item(`Missed story number ${i}: exchange ${i} adds token ${i}`),
    );
    const res = await ingest(t.app, missed);
    const ids = (res.json() as { results: { id: string }[] }).results.map((r) => r.id);
    // Let every analysis finish so the replay carries the completed state.
    const live = await openSse(url);
    await live.waitFor(() => true);
    for (let i = 0; i < 500; i++) {
      const list = (await t.app.inject('/api/signals?limit=60')).json() as Signal[];
      if (list.every((s) => s.analysis.status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    live.close();

    const resumed = await openSse(url, { 'last-event-id': lastId });
    await resumed.waitFor(() => resumed.signals().length >= 50);
    const status = resumed.statuses()[0] as StreamStatus;
    expect(status.resumed).toBe(50);
    expect(resumed.frames[0]?.event).toBe('status');
    expect(resumed.frames[0]?.id).toBe(lastId);
    const replayed = resumed.signals();
    expect(replayed).toHaveLength(50);
    // The last 50 changes, in the order they were made: analyses of one batch finish in any order, so
    // these are 50 distinct signals of the 60 missed ones (the first story's change came before them).
    const replayedIds = replayed.map((s) => s.id);
    expect(new Set(replayedIds).size).toBe(50);
    expect(replayedIds.every((id) => ids.includes(id))).toBe(true);
    expect(replayed.every((s) => s.analysis.status === 'completed')).toBe(true);
    const frameIds = resumed.frames.slice(1).map((f) => Number(f.id));
    expect(frameIds).toEqual([...frameIds].sort((a, b) => a - b));
    expect(frameIds[0]).toBeGreaterThan(Number(lastId));

    await ingest(t.app, item('Live after resume: Kraken adds staking for SOL in Europe'));
    await resumed.waitFor(() => resumed.signals().length >= 52);
    resumed.close();
  });
});

describe('signal stream shutdown', () => {
  it('ends open streams when the server closes', async () => {
    const t = await startTestApp(pglite, { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN });
    const url = await listen(t);
    const sse = await openSse(url);
    await sse.waitFor((f) => f.length >= 1);
    const started = Date.now();
    await t.close();
    await sse.ended;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

const signal = (id: string): Signal => ({
  id,
  signal_id: id,
  asset: null,
  assets: [],
  content: `item ${id}`,
  metadata: { url: null, icon: null, source_name: 'T', username: null, media_urls: [] },
  quote_data: null,
  analysis: { status: 'analyzing', impact_score: null, nlp: null },
  event_type: null,
  initial_prices: {},
  source: 'webhook',
  published_at: null,
  received_at: new Date(0).toISOString(),
  also_reported_by: [],
});

const status = (_cursor: number, resumed: number): StreamStatus => ({
  connected: true,
  sources: [],
  analyzer: 'local',
  heartbeat_ms: 15_000,
  resumed,
});

function memorySink() {
  const out: string[] = [];
  const sink: StreamSink & { out: string[]; ended: boolean; destroyed: boolean; pending: number } = {
    out,
    ended: false,
    destroyed: false,
    pending: 0,
    get writableLength() {
      return this.pending;
    },
    write(chunk) {
      out.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return true;
    },
    end() {
      this.ended = true;
    },
    destroy() {
      this.destroyed = true;
    },
  };
  return sink;
}

describe('SignalStream', () => {
  it('sends a heartbeat comment every 15 s on the injected clock, and stops on close', async () => {
    const clock = createFakeClock();
    const stream = new SignalStream({ clock, defer: (f) => f() });
    stream.start(0);
    const sink = memorySink();
    await stream.connect(sink, status, null, () => Promise.resolve([]));
    clock.advance(14_999);
    expect(sink.out.filter((c) => c.startsWith(':'))).toHaveLength(0);
    clock.advance(1);
    expect(sink.out.filter((c) => c === ': heartbeat\n\n')).toHaveLength(1);
    clock.advance(30_000);
    expect(sink.out.filter((c) => c === ': heartbeat\n\n')).toHaveLength(3);
    stream.close();
    expect(sink.ended).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('holds live frames during a resume and sends them after the replay, without repeats', async () => {
    const stream = new SignalStream({ clock: createFakeClock(), defer: (f) => f() });
    stream.start(10);
    const sink = memorySink();
    let release: (v: { rev: number; signal: Signal }[]) => void = () => undefined;
    const connecting = stream.connect(sink, status, 10, () => new Promise((r) => (release = r)));
    stream.publish(12, signal('2'));
    stream.publish(13, signal('3'));
    release([
      { rev: 11, signal: signal('1') },
      { rev: 12, signal: signal('2') },
    ]);
    await connecting;
    const ids = sink.out.filter((c) => c.startsWith('id:')).map((c) => /^id: (\d+)/.exec(c)?.[1]);
    expect(ids).toEqual(['10', '11', '12', '13']);
  });

  it('drops a client whose unsent bytes pass the bound, and keeps the others', async () => {
    const slow = memorySink();
    const fast = memorySink();
    let dropped = 0;
    const s2 = new SignalStream({
      clock: createFakeClock(),
      maxBufferedBytes: 1000,
      onDrop: () => (dropped += 1),
      defer: (f) => f(),
    });
    s2.start(0);
    await s2.connect(slow, status, null, () => Promise.resolve([]));
    await s2.connect(fast, status, null, () => Promise.resolve([]));
    slow.pending = 5000;
    s2.publish(1, signal('1'));
    expect(slow.destroyed).toBe(true);
    expect(dropped).toBe(1);
    expect(s2.size).toBe(1);
    expect(fast.out.some((c) => c.startsWith('id: 1\n'))).toBe(true);
  });

  it('drops a real client that stops reading, never buffering without bound', async () => {
    const stream = new SignalStream({
      clock: createFakeClock(),
      maxBufferedBytes: 64 * 1024,
      defer: (f) => f(),
    });
    stream.start(0);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void stream.connect(res, status, null, () => Promise.resolve([]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const reader = await openSse(`http://127.0.0.1:${port}/`);
    const stalled = await openSse(`http://127.0.0.1:${port}/`);
    stalled.res.pause();
    stalled.res.socket.pause();
    await reader.waitFor((f) => f.length >= 1);
    const big = { ...signal('x'), content: 'y'.repeat(16 * 1024) };
    for (let i = 1; i <= 2000 && stream.size === 2; i++) {
      stream.publish(i, { ...big, id: String(i) });
      await new Promise((r) => setImmediate(r));
    }
    expect(stream.size).toBe(1);
    expect(stream.stats.dropped).toBe(1);
    // The server closed the stalled connection: once the client reads again it sees the end.
    stalled.res.socket.resume();
    stalled.res.resume();
    await stalled.ended;
    stream.close();
    await reader.ended;
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('writes the frames of one turn of the event loop to each client as one write', async () => {
    const sink = memorySink();
    let flush: (() => void) | null = null;
    const stream = new SignalStream({ clock: createFakeClock(), defer: (f) => (flush = f) });
    stream.start(0);
    await stream.connect(sink, status, null, () => Promise.resolve([]));
    const writesBefore = sink.out.length;
    stream.publish(1, signal('a'));
    stream.publish(2, signal('b'));
    expect(sink.out.length).toBe(writesBefore);
    (flush as (() => void) | null)?.();
    expect(sink.out.length).toBe(writesBefore + 1);
    expect(sink.out.at(-1)).toMatch(/^id: 1\nevent: signal[\s\S]*\n\nid: 2\nevent: signal/);
  });
});
