import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnalysisResult, type AnalysisInput } from '../../src/contracts/analysis';
import {
  createAnalyzer,
  type Analyzer,
  type AnalyzerDeps,
} from '../../server/modules/analysis/analysis.service';
import { startOpenAiDouble, type OpenAiDouble } from '../fixtures/openai-double';
import { startTestApp } from '../helpers/app';
import { useDatabase } from '../helpers/db';

/** ANALYZER=llm against a local double of the chat-completions API on 127.0.0.1. */
let double: OpenAiDouble;
let analyzer: Analyzer | undefined;
let warnings: Record<string, unknown>[];
let sleeps: number[];

const listing: AnalysisInput = {
  content: 'Binance Will List Solana (SOL) perpetuals with 75x leverage',
  source_name: 'Binance Announcements',
};

function start(deps: AnalyzerDeps['llm'] = {}, apiKey = double.apiKey, random?: () => number): Analyzer {
  analyzer = createAnalyzer(
    { ANALYZER: 'llm', LLM_BASE_URL: double.baseUrl, LLM_API_KEY: apiKey, LLM_MODEL: 'gpt-4o-mini' },
    {
      ...(random === undefined ? {} : { random }),
      llm: { backoffMs: 10, timeoutMs: 2000, ...deps },
      log: { warn: (obj) => void warnings.push(obj) },
      sleep: (ms) => {
        sleeps.push(ms);
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    },
  );
  return analyzer;
}

const answer = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    sentiment: 'positive',
    assets: ['sol', '$PEPE', 'ETHUSDT', 'USDT', 'NOTACOIN', '1000SHIB', 'USDC'],
    event_type: 'listing',
    impact_score: 64.4,
    reasoning: 'Binance listing of SOL perpetuals adds demand',
    ...over,
  });

beforeEach(async () => {
  double = await startOpenAiDouble();
  warnings = [];
  sleeps = [];
});

afterEach(async () => {
  await analyzer?.close();
  analyzer = undefined;
  await double.close();
});

describe('ANALYZER=llm', () => {
  it('rehearses the text paths at start without a request to the LLM', async () => {
    const t = await startTestApp(useDatabase('pglite'), {
      ANALYZER: 'llm',
      LLM_BASE_URL: double.baseUrl,
      LLM_API_KEY: double.apiKey,
      LLM_MODEL: 'gpt-4o-mini',
      NEWS_SOURCES: 'webhook',
    });
    await t.close();
    // The rehearsal is the local analysis alone: it neither asks the LLM nor waits for it.
    start().rehearse([listing, listing]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(double.requests).toEqual([]);
  });

  it('sends a JSON-schema request at temperature 0 with examples and the bearer key', async () => {
    double.script({ kind: 'ok', content: answer() });
    const r = await start().analyze(listing);
    expect(AnalysisResult.parse(r)).toEqual({
      // A stablecoin the model names is kept (it judges whether the item is about it), shown untradable.
      assets: ['SOL', 'PEPE', 'ETH', 'USDT', 'SHIB', 'USDC'],
      asset_details: [
        { symbol: 'SOL', tradable: true, stablecoin: false },
        { symbol: 'PEPE', tradable: true, stablecoin: false },
        { symbol: 'ETH', tradable: true, stablecoin: false },
        { symbol: 'USDT', tradable: false, stablecoin: true },
        { symbol: 'SHIB', tradable: true, stablecoin: false },
        { symbol: 'USDC', tradable: false, stablecoin: true },
      ],
      asset: 'SOL',
      sentiment: 'positive',
      impact_score: 64,
      reasoning: 'Binance listing of SOL perpetuals adds demand.',
      event_type: 'listing',
      engine: 'llm',
      engine_version: 'llm-prompt-3',
      disagreement: false,
    });
    const req = double.requests[0];
    expect(req?.authorization).toBe(`Bearer ${double.apiKey}`);
    expect(req?.body).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'news_analysis', strict: true } },
    });
    const messages = req?.body.messages as { role: string; content: string }[];
    expect(messages[0]?.role).toBe('system');
    expect(messages.filter((m) => m.role === 'assistant').length).toBeGreaterThanOrEqual(3);
    expect(messages.at(-1)?.content).toContain(listing.content);
  });

  it('flags a disagreement with the local engine', async () => {
    double.script({ kind: 'ok', content: answer({ sentiment: 'negative' }) });
    const r = await start().analyze(listing);
    expect(r).toMatchObject({ engine: 'llm', sentiment: 'negative', disagreement: true });
  });

  it.each([
    ['not JSON', 'Sure! The sentiment is positive.'],
    ['an unknown sentiment', answer({ sentiment: 'bullish' })],
    ['a missing field', JSON.stringify({ sentiment: 'positive', assets: [] })],
    ['an impact above 100', answer({ impact_score: 140 })],
  ])('falls back to the local result on %s', async (_, content) => {
    double.script({ kind: 'ok', content });
    const r = await start().analyze(listing);
    expect(r).toMatchObject({
      engine: 'local-fallback',
      engine_version: 'local-4',
      asset: 'SOL',
      event_type: 'listing',
      sentiment: 'positive',
    });
    expect(double.requests).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });

  it('does not retry a 401 invalid_api_key and falls back', async () => {
    const r = await start({}, 'sk-wrong-key-0000').analyze(listing);
    expect(r.engine).toBe('local-fallback');
    expect(warnings[0]).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(sleeps).toEqual([]);
  });

  it('waits retry-after on a 429, then succeeds', async () => {
    double.script({ kind: 'rate-limit', retryAfterMs: 120 }, { kind: 'ok', content: answer() });
    const r = await start().analyze(listing);
    expect(r.engine).toBe('llm');
    expect(double.requests).toHaveLength(2);
    expect(sleeps).toEqual([120]);
  });

  it('backs off exponentially on 500s and gives up after the retries', async () => {
    double.script({ kind: 'server-error' }, { kind: 'server-error' }, { kind: 'ok', content: answer() });
    // Equal jitter: half of each step for sure, up to the other half at random. With the random draw
    // fixed at the middle, 10 ms then 20 ms become 8 and 15 (two draws at the ends could give 10 and 10).
    expect((await start({ maxRetries: 2 }, double.apiKey, () => 0.5).analyze(listing)).engine).toBe('llm');
    expect(sleeps).toEqual([8, 15]);

    double.script({ kind: 'server-error' }, { kind: 'server-error' }, { kind: 'server-error' });
    const failed = await analyzer?.analyze(listing);
    expect(failed?.engine).toBe('local-fallback');
    expect(warnings.at(-1)).toMatchObject({ status: 500 });
    expect(double.requests).toHaveLength(6);
  });

  it('gives up on a retry-after longer than the back-off cap', async () => {
    double.script({ kind: 'rate-limit', retryAfterMs: 60_000 });
    expect((await start({ maxBackoffMs: 1000 }).analyze(listing)).engine).toBe('local-fallback');
    expect(double.requests).toHaveLength(1);
  });

  it('times out a hung request and falls back', async () => {
    double.script({ kind: 'hang', ms: 5000 });
    const t0 = performance.now();
    const r = await start({ timeoutMs: 150, maxRetries: 0 }).analyze(listing);
    expect(r.engine).toBe('local-fallback');
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(warnings[0]).toMatchObject({ code: 'timeout' });
  });

  it('caps the requests in flight', async () => {
    double.script(...Array.from({ length: 6 }, () => ({ kind: 'hang' as const, ms: 120 })));
    const a = start({ concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => a.analyze(listing)));
    expect(results.every((r) => r.engine === 'llm')).toBe(true);
    expect(double.requests).toHaveLength(6);
    expect(double.maxInFlight).toBe(2);
  });

  it('falls back without a request once closed', async () => {
    const a = start();
    await a.close();
    expect((await a.analyze(listing)).engine).toBe('local-fallback');
    expect(double.requests).toHaveLength(0);
  });

  it('refuses to start without a base URL and model', () => {
    expect(() =>
      createAnalyzer({ ANALYZER: 'llm', LLM_BASE_URL: undefined, LLM_API_KEY: 'k', LLM_MODEL: undefined }),
    ).toThrow(/LLM_BASE_URL and LLM_MODEL/);
  });
});
