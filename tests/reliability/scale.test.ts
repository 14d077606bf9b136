import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PriceQuote } from '../../src/contracts/market';
import { IngestResponse } from '../../src/contracts/signals';
import { ConfigError, loadConfig } from '../../server/config';
import { Decision, Rule, RiskState } from '../../src/contracts/rules';
import { useDatabase, type ServerDatabase } from '../helpers/db';
import { Api, describe as answerText, signUp } from './support/api';
import { recordFigures } from './support/figures';
import { readHealth, until } from './support/health';
import { sleep } from './support/mode';
import { newsItem } from './support/news';
import { CrashableServer } from './support/server';
import { openSignalStream } from './support/sse';

/**
 * Several machines, played on this one: two api nodes and two workers as separate processes, on one
 * fresh PostgreSQL database and one Redis (a prefix of their own). Runs when TEST_DATABASE_URL and
 * TEST_REDIS_URL are both set; CI sets them when the services answer.
 */
const scaleTargets = (): 'postgres+redis'[] =>
  process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL ? ['postgres+redis'] : [];

const Token = z.object({ access_token: z.string() });

describe('roles', () => {
  it('a node in a role refuses to start without the database and bus the roles share', () => {
    for (const ROLE of ['api', 'worker']) {
      expect(() => loadConfig({ ROLE })).toThrow(
        `ROLE=${ROLE} needs DATABASE_URL and REDIS_URL: api nodes and workers share their work through them`,
      );
      expect(() =>
        loadConfig({ ROLE, DATABASE_URL: 'postgres://db/x', SECRETS_KEY: 'ab'.repeat(32) }),
      ).toThrow(ConfigError);
    }
    expect(loadConfig({}).ROLE).toBe('all');
  });
});

describe.each(scaleTargets())('two api nodes and two workers on %s', () => {
  const token = 'scale-ingest-token-0123456789';
  const tag = randomBytes(4).toString('hex');
  let target: ServerDatabase;
  const dirs: string[] = [];
  let apiA: CrashableServer;
  let apiB: CrashableServer;
  let workers: CrashableServer[] = [];

  const node = async (role: 'api' | 'worker', env: Record<string, string>) => {
    const dir = await mkdtemp(path.join(tmpdir(), `sc-scale-${role}-`));
    dirs.push(dir);
    return CrashableServer.create({ ...env, DATA_DIR: dir, ROLE: role });
  };

  beforeAll(async () => {
    target = await useDatabase('postgres', { server: true });
    const env = {
      ...target.env,
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      REDIS_PREFIX: `scale-${tag}:`,
      NEWS_SOURCES: 'replay,webhook',
      REPLAY_INTERVAL_MS: '2000',
      INGEST_TOKEN: token,
      MARKET_SOURCE: 'sim',
      MARKET_SIM_TICK_MS: '500',
      // As behind a load balancer: the client's address comes from X-Forwarded-For.
      TRUST_PROXY: '127.0.0.1',
    };
    // The first worker applies the migrations; the others find them applied.
    workers = [await node('worker', env)];
    await workers[0]?.start();
    apiA = await node('api', env);
    apiB = await node('api', env);
    workers.push(await node('worker', env));
    await Promise.all([apiA.start(), apiB.start(), workers[1]?.start()]);
  }, 240_000);

  afterAll(async () => {
    for (const server of [apiA, apiB, ...workers]) await server?.stop();
    await target?.cleanup();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const leasesOf = async (server: CrashableServer) => (await readHealth(server.base))?.health.leases ?? [];

  it('splits the work: api nodes hold no job, each job is held by exactly one worker', async () => {
    const jobs = ['market-feed', 'news-sources', 'rules', 'scorecard', 'paper-liquidations', 'notifications'];
    await until(
      'every job held',
      async () => {
        const held = (await Promise.all(workers.map(leasesOf))).flat();
        return jobs.every((job) => held.includes(job));
      },
      20_000,
    );
    const held = (await Promise.all(workers.map(leasesOf))).flat();
    for (const job of jobs)
      expect(
        held.filter((h) => h === job),
        job,
      ).toHaveLength(1);
    for (const api of [apiA, apiB]) {
      const health = await readHealth(api.base);
      expect(health?.health.role).toBe('api');
      expect(health?.health.leases).toEqual([]);
    }
    // A worker serves its health check only: users never land on it.
    const page = await fetch(`${workers[0]?.base}/api/signals?limit=1`);
    expect(page.status).toBe(404);
  });

  it('serves one price stream: both api nodes quote the publisher’s price', async () => {
    const quote = async (server: CrashableServer) => {
      const res = await fetch(`${server.base}/api/price/BTCUSDT`);
      return PriceQuote.parse(await res.json());
    };
    // Two simulators would walk apart at once; one publisher gives equal quotes for equal tick times.
    let same = 0;
    for (let i = 0; i < 40 && same < 3; i += 1) {
      const [a, b] = await Promise.all([quote(apiA), quote(apiB)]);
      if (a.time === b.time) {
        expect(a.price, `price at ${a.time}`).toBe(b.price);
        same += 1;
      }
      await sleep(120);
    }
    expect(same, 'quotes taken at the same tick').toBeGreaterThanOrEqual(3);
  });

  it('a signal ingested on node A reaches the SSE clients of node B', async () => {
    const stream = await openSignalStream(apiB.base);
    const webhook = new Api(apiA.base);
    webhook.token = token;
    try {
      const item = newsItem(900);
      const content = `${item.content} (desk ${tag})`;
      const sentAt = performance.now();
      const answer = await webhook.send('POST', '/signals/ingest', {
        ...item,
        content,
        external_id: `${tag}-cross`,
      });
      expect(answer?.status, answerText(answer)).toBe(202);
      const crossMs = await until('the signal on node B', () => stream.text().includes(content), 15_000);
      // Api nodes store; the worker running the news sources analyses, and its result crosses back.
      const analysedMs = await until(
        'the analysed signal on node B',
        () =>
          stream
            .text()
            .split('\n')
            .some((line) => line.includes(content) && line.includes('"status":"completed"')),
        15_000,
      );
      recordFigures('scale-signal-across-nodes', {
        crossMs,
        analysedMs,
        sinceSendMs: Math.round(performance.now() - sentAt),
      });
    } finally {
      stream.close();
    }
  });

  it('near-duplicates posted to node A and node B at the same moment become one story', async () => {
    const post = (server: CrashableServer, content: string, source: string) => {
      const api = new Api(server.base);
      api.token = token;
      return api.send('POST', '/signals/ingest', { content, source_name: source });
    };
    const answers = await Promise.all([
      post(apiA, `Bybit freezes QNT deposits after a bridge exploit, desk ${tag}`, 'Wire A'),
      post(apiB, `Bridge exploit: Bybit freezes deposits of QNT, desk ${tag}`, 'Wire B'),
    ]);
    const outcomes = answers.map((a) => {
      expect(a?.status, answerText(a)).toBe(202);
      return IngestResponse.parse(a?.body).results[0];
    });
    expect(outcomes.map((o) => o?.result).sort()).toEqual(['clustered', 'created']);
    expect(outcomes[0]?.id).toBe(outcomes[1]?.id);
  });

  it('a session made on node A works on node B, refresh included', async () => {
    const user = await signUp(apiA.base, `scale${tag}`);
    const onB = new Api(apiB.base);
    onB.token = user.token;
    const me = await onB.send('GET', '/users/me');
    expect(me?.status, answerText(me)).toBe(200);

    const login = await fetch(`${apiA.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        username: `scale${tag}`,
        password: 'reliable Pa55word!',
        remember_me: 'true',
      }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const refreshed = await fetch(`${apiB.base}/api/auth/refresh`, {
      method: 'POST',
      headers: { cookie, origin: apiB.base },
    });
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    Token.parse(await refreshed.json());
  });

  it('bad logins spread over both nodes hit the limit as on one node', async () => {
    const username = `limit${tag}`;
    await signUp(apiA.base, username);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await fetch(`${(i % 2 === 0 ? apiA : apiB).base}/api/auth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          // A different client address each time (a documentation range, never contacted): the limit
          // met must be the account's, not the address's.
          'x-forwarded-for': `203.0.113.${10 + i}`,
        },
        body: new URLSearchParams({ username, password: `wrong password ${i}` }),
      });
      statuses.push(res.status);
    }
    // Five free failures for the account, wherever they land; the next try waits (429).
    const firstRefusal = statuses.indexOf(429);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(firstRefusal, statuses.join(' ')).toBeGreaterThanOrEqual(5);
    expect(firstRefusal, statuses.join(' ')).toBeLessThanOrEqual(6);
  });

  it('with two workers a rule fires once per signal', async () => {
    const user = await signUp(apiB.base, `rules${tag}`);
    await user.must(RiskState, 'PUT', '/rules/risk', {
      daily_budget_usd: 1_000_000,
      cooldown_minutes: 0,
      max_positions: 10,
      max_age_seconds: 3600,
    });
    await user.must(Rule, 'POST', '/rules/', {
      ruleName: 'SOL any news',
      conditions: { asset: 'SOL' },
      action: { type: 'trade', side: 'long', amount_usd: 100 },
      isActive: true,
    });
    const webhook = new Api(apiA.base);
    webhook.token = token;
    const items = [0, 3, 6].map((i) => newsItem(2001 + i)); // SOL, three different stories
    const ours: string[] = [];
    for (const [k, item] of items.entries()) {
      const answer = await webhook.send('POST', '/signals/ingest', {
        ...item,
        content: `${item.content} (${tag} ${k})`,
        external_id: `${tag}-rule-${k}`,
      });
      expect(answer?.status, answerText(answer)).toBe(202);
      const id = IngestResponse.parse(answer?.body).results[0]?.id;
      if (id === undefined || id === null) throw new Error(`no signal id in ${answerText(answer)}`);
      ours.push(id);
    }
    // The replayed news runs too and may match the rule: ours are looked at, and no signal twice.
    const ledger = async () => user.must(z.array(Decision), 'GET', '/rules/ledger?limit=500');
    const mine = async () => (await ledger()).filter((d) => ours.includes(String(d.signal_id)));
    await until('a decision for each of our signals', async () => (await mine()).length >= 3, 30_000);
    await sleep(3000); // a second engine, had there been one, would have decided by now
    expect((await mine()).map((d) => d.outcome)).toEqual(['fired', 'fired', 'fired']);
    const all = await ledger();
    expect(new Set(all.map((d) => d.signal_id)).size, 'a signal decided twice').toBe(all.length);
  });

  it('killing the worker that holds the market feed moves it to the other within 10 s', async () => {
    const holderIndex = (await Promise.all(workers.map(leasesOf))).findIndex((l) =>
      l.includes('market-feed'),
    );
    const holder = workers[holderIndex];
    const other = workers[1 - holderIndex];
    if (holder === undefined || other === undefined) throw new Error('no worker holds the market feed');
    const priceTime = async () => {
      const res = await fetch(`${apiB.base}/api/price/ETHUSDT`);
      return PriceQuote.parse(await res.json()).time;
    };
    await holder.kill();
    const killedAt = performance.now();
    const takeoverMs = await until(
      'the other worker holds the market feed',
      async () => (await leasesOf(other)).includes('market-feed'),
      15_000,
    );
    const before = await priceTime();
    await until('prices flowing on node B again', async () => (await priceTime()) > before, 10_000);
    const pricesBackMs = Math.round(performance.now() - killedAt);
    // The dead worker's other jobs move too.
    const jobs = ['news-sources', 'rules', 'scorecard', 'paper-liquidations', 'notifications'];
    const allMovedMs = await until(
      'every job on the other worker',
      async () => {
        const held = await leasesOf(other);
        return jobs.every((job) => held.includes(job));
      },
      15_000,
    );
    recordFigures('scale-feed-failover', {
      takeoverMs,
      pricesBackMs,
      allJobsMovedMs: takeoverMs + allMovedMs,
    });
    expect(takeoverMs).toBeLessThan(10_000);
    await holder.start();
  });
});
