import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Signal } from '../../src/contracts/signals';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { startOpenAiDouble, type OpenAiDouble } from '../fixtures/openai-double';
import { dbTargets, useDatabase, type ServerDatabase } from '../helpers/db';
import { Api, describe as describe_ } from './support/api';
import { recordFigures } from './support/figures';
import { readHealth, until, untilCleared, untilDegraded } from './support/health';
import { sleep } from './support/mode';
import { newsItem, settleItem, type SentItem } from './support/news';
import { CrashableServer } from './support/server';
import { openSignalStream } from './support/sse';
import { TcpProxy, throughProxy } from './support/tcp-proxy';

/** The market watchdog's limit in this run (MARKET_STALE_MS): 15 s in production. */
const STALE_MS = 2_000;
/** How old a price the app serves from its book (PRICE_MAX_AGE_MS) before it asks Binance's ticker. */
const PRICE_AGE_MS = 4_000;
/** One LLM request's limit in this run (LLM_TIMEOUT_MS); it is tried three times before the fallback. */
const LLM_TIMEOUT_MS = 800;
const TICK_MS = 250;

/**
 * The shared event bus the bus scenarios run on: Redis when TEST_REDIS_URL is set, else none (the
 * in-process bus has no connection to lose).
 */
const busTargets = (): 'redis'[] => (process.env.TEST_REDIS_URL ? ['redis'] : []);

/**
 * The live feeds going bad while the real server runs: Binance's market stream stalls or drops, the LLM
 * endpoint stops answering. One server process on PGlite for both, faults run side by side.
 */
describe('faults in the live feeds: market stream and AI analyzer', () => {
  let target: ServerDatabase;
  let server: CrashableServer;
  let binance: BinanceDouble;
  let llm: OpenAiDouble;
  let webhook: Api;
  let ticking = true;
  let ticker: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    [target, binance, llm] = await Promise.all([
      useDatabase('pglite', { server: true }),
      startBinanceDouble({ BTCUSDT: 97_000.1, ETHUSDT: 3_400.25 }),
      startOpenAiDouble(),
    ]);
    ticker = setInterval(() => {
      if (!ticking) return;
      binance.tick();
      binance.markPrice();
    }, TICK_MS);
    const token = 'fault-ingest-token-0123456789';
    server = await CrashableServer.create({
      ...target.env,
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: binance.restUrl,
      BINANCE_FSTREAM_URL: binance.streamUrl,
      MARKET_STALE_MS: String(STALE_MS),
      PRICE_MAX_AGE_MS: String(PRICE_AGE_MS),
      ANALYZER: 'llm',
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: llm.apiKey,
      LLM_MODEL: 'gpt-4o-mini',
      LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: token,
    });
    await server.start();
    webhook = new Api(server.base);
    webhook.token = token;
  }, 180_000);
  afterAll(async () => {
    clearInterval(ticker);
    await server?.stop();
    await Promise.all([binance?.close(), llm?.close(), target?.cleanup()]);
  });

  const price = async (symbol: string): Promise<number | null> => {
    const answer = await new Api(server.base).send('GET', `/price/${symbol}`);
    if (answer?.status !== 200) return null;
    return z.object({ price: z.number() }).parse(answer.body).price;
  };

  it('market stream stalls, then drops: health names it while it lasts, prices flow again after', async () => {
    await until('healthz ok before the faults', async () => (await readHealth(server.base))?.code === 200);
    expect((await readHealth(server.base))?.health).toMatchObject({ status: 'ok', degraded: [] });
    await until('the first price', async () => (await price('BTCUSDT')) === 97_000.1);

    // Stall: the socket stays open, nothing comes.
    ticking = false;
    const quietSince = Date.now();
    const stallDetectMs = await untilDegraded(server.base, 'market feed stalled', 10_000 + STALE_MS);
    binance.prices.set('BTCUSDT', 97_500.5);
    // While the last streamed price is young it is served; older, Binance's ticker is asked instead.
    if (Date.now() - quietSince < PRICE_AGE_MS - 1_000) {
      expect(await price('BTCUSDT'), 'the young price the stream sent').toBe(97_000.1);
    }
    await sleep(PRICE_AGE_MS);
    expect(await price('BTCUSDT'), "Binance's ticker, not a price older than the bound").toBe(97_500.5);
    const stalled = await readHealth(server.base);
    expect(stalled?.code, 'named, but the server still serves').toBe(200);
    ticking = true;
    const stallRecoverMs = await until(
      'the price after the stall',
      async () => (await price('BTCUSDT')) === 97_500.5,
    );
    await untilCleared(server.base, 'market feed');
    const stallHealthyMs = await until('healthz ok after the stall', async () => {
      const h = await readHealth(server.base);
      return h?.code === 200 && !h.health.degraded.some((d) => d.startsWith('market'));
    });

    // Drop: every socket closed by Binance's side; the server reconnects with back-off.
    const connectsBefore = binance.requests.filter((r) => r.startsWith('/market/stream')).length;
    binance.disconnectAll();
    const dropDetectMs = await untilDegraded(server.base, 'market feed', 5_000);
    binance.prices.set('BTCUSDT', 97_800.25);
    const dropRecoverMs = await until(
      'the price after the drop',
      async () => (await price('BTCUSDT')) === 97_800.25,
    );
    await untilCleared(server.base, 'market feed');
    expect(binance.requests.filter((r) => r.startsWith('/market/stream')).length).toBeGreaterThan(
      connectsBefore,
    );

    recordFigures('fault-market-feed', {
      staleMs: STALE_MS,
      stallDetectMs,
      stallRecoverMs,
      stallHealthyMs,
      dropDetectMs,
      dropRecoverMs,
    });
  }, 120_000);

  it('LLM endpoint hangs: news is still analysed (local fallback), health names it, recovers when it answers', async () => {
    let n = 900;
    const post = async (): Promise<SentItem> => {
      const sent: SentItem = { item: newsItem(n++), first: null, outcome: null };
      sent.first = await webhook.send('POST', '/signals/ingest', { ...sent.item });
      expect(settleItem(sent, sent.first), JSON.stringify(sent.first)).toBe(true);
      expect(sent.outcome?.result).toBe('created');
      return sent;
    };
    const analysed = async (id: string) => {
      const answer = await new Api(server.base).send('GET', '/signals?limit=200');
      const list = z.array(Signal).parse(answer?.body ?? []);
      const found = list.find((s) => s.id === id);
      return found?.analysis.status === 'completed' ? found.analysis : null;
    };
    const engineOf = async (id: string, timeoutMs: number) => {
      let engine = '';
      await until(
        `signal ${id} analysed`,
        async () => {
          const a = await analysed(id);
          if (a !== null && a.status === 'completed') engine = a.engine;
          return engine !== '';
        },
        timeoutMs,
        200,
      );
      return engine;
    };

    const before = await post();
    expect(await engineOf(before.outcome?.id ?? '', 60_000)).toBe('llm');

    // The endpoint accepts the request and never answers: each try times out, then the local engine.
    llm.script(...Array.from({ length: 30 }, () => ({ kind: 'hang', ms: 120_000 }) as const));
    const hung = await Promise.all([post(), post()]);
    const started = performance.now();
    const engines = await Promise.all(hung.map((s) => engineOf(s.outcome?.id ?? '', 60_000)));
    const fallbackMs = Math.round(performance.now() - started);
    expect(engines).toEqual(['local-fallback', 'local-fallback']);
    const detectMs = await untilDegraded(server.base, 'AI analyzer not answering: local fallback', 5_000);

    // It answers again: the next item is the LLM's, and health is clear.
    const queued = llm.requests.length;
    llm.clear();
    const after = await post();
    const recoverStarted = performance.now();
    const engine = await engineOf(after.outcome?.id ?? '', 60_000);
    expect(engine).toBe('llm');
    await untilCleared(server.base, 'AI analyzer');
    recordFigures('fault-llm-hang', {
      llmTimeoutMs: LLM_TIMEOUT_MS,
      itemsDuringHang: hung.length,
      fallbackAnalysedMs: fallbackMs,
      healthDetectMs: detectMs + fallbackMs,
      recoverMs: Math.round(performance.now() - recoverStarted),
      llmRequestsDuringHang: queued,
    });
  }, 180_000);
});

/**
 * Redis going away under several server processes (two on one PostgreSQL database when
 * TEST_DATABASE_URL is set, else one on PGlite whose own signals come back to it over Redis): a proxy on
 * loopback in front of Redis drops every connection and refuses new ones for a few seconds.
 */
describe.each(busTargets())('faults in the event bus: %s cut off for 5 s', () => {
  const CUT_MS = 5_000;
  const token = 'bus-ingest-token-0123456789';
  const tag = randomBytes(4).toString('hex');
  let target: ServerDatabase;
  let proxy: TcpProxy;
  let nodes: CrashableServer[] = [];
  let webhook: Api;

  beforeAll(async () => {
    const shared = dbTargets().includes('postgres');
    target = await useDatabase(shared ? 'postgres' : 'pglite', { server: true });
    const redis = new URL(process.env.TEST_REDIS_URL ?? '');
    proxy = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
    const env = {
      ...target.env,
      REDIS_URL: throughProxy(redis.toString(), proxy),
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: token,
    };
    nodes = [await CrashableServer.create(env)];
    if (shared) {
      const second = await mkdtemp(path.join(tmpdir(), 'sc-reliability-node-'));
      nodes.push(await CrashableServer.create({ ...env, DATA_DIR: second }));
    }
    // One after the other: the first applies the migrations.
    for (const node of nodes) await node.start();
    webhook = new Api(nodes[0]?.base ?? '');
    webhook.token = token;
  }, 180_000);
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await proxy?.close();
    await target?.cleanup();
  });

  it('health names the bus while Redis is away; signals cross between the nodes again after', async () => {
    const watcher = nodes.at(-1);
    if (watcher === undefined) throw new Error('no node');
    const stream = await openSignalStream(watcher.base);
    let n = 0;
    const post = async (): Promise<string> => {
      const item = newsItem(700 + n++);
      const content = `${item.content} (desk ${tag}-${n})`;
      const answer = await webhook.send('POST', '/signals/ingest', {
        ...item,
        content,
        external_id: `${tag}-${n}`,
      });
      expect(answer?.status, describe_(answer)).toBe(202);
      return content;
    };
    const crossed = (content: string) => stream.text().includes(content);
    try {
      const first = await post();
      const baselineMs = await until('a signal across the bus', () => crossed(first), 15_000);

      proxy.cut();
      const detectMs = await Promise.all(
        nodes.map((node) => untilDegraded(node.base, 'event bus unreachable', 10_000)),
      );
      // The webhook still takes news while the bus is away: stored, analysed, just not broadcast.
      const during = await post();
      await sleep(CUT_MS);
      proxy.restore();
      const restoredAt = performance.now();
      const clearedMs = await Promise.all(nodes.map((node) => untilCleared(node.base, 'event bus', 20_000)));
      const after = await post();
      await until('a signal across the bus after Redis came back', () => crossed(after), 15_000);
      const flowingMs = Math.round(performance.now() - restoredAt);
      recordFigures('fault-redis-bus', {
        nodes: nodes.length,
        cutMs: CUT_MS,
        baselineCrossMs: baselineMs,
        healthDetectMs: detectMs,
        healthOkAfterRestoreMs: clearedMs,
        signalsFlowAfterRestoreMs: flowingMs,
        signalDuringCutDelivered: crossed(during),
      });
    } finally {
      stream.close();
    }
  }, 120_000);
});
