import type { Clock } from '../../src/contracts/clock';
import type { Signal } from '../../src/contracts/signals';
import type { Decision } from '../../src/contracts/rules';
import type { TestApp } from '../helpers/app';

/** A completed signal as the engine reads it, for tests that drive the engine directly. */
export function completedSignal(over: {
  id: string;
  assets: string[];
  sentiment?: 'positive' | 'negative' | 'neutral';
  impact?: number;
  receivedAt?: number;
  content?: string;
}): Signal {
  return {
    id: over.id,
    signal_id: over.id,
    asset: over.assets[0] ?? null,
    assets: over.assets,
    content: over.content ?? `test signal ${over.id}`,
    metadata: { url: null, icon: null, source_name: 'Test', username: null, media_urls: [] },
    quote_data: null,
    analysis: {
      status: 'completed',
      impact_score: over.impact ?? 70,
      nlp: { sentiment: over.sentiment ?? 'positive', reasoning: 'test' },
      engine: 'local',
    },
    event_type: null,
    initial_prices: {},
    source: 'webhook',
    published_at: null,
    received_at: new Date(over.receivedAt ?? Date.now()).toISOString(),
    also_reported_by: [],
  };
}

export async function ledger(t: TestApp, authorization: string, query = ''): Promise<Decision[]> {
  const res = await t.app.inject({ url: `/api/rules/ledger${query}`, headers: { authorization } });
  if (res.statusCode !== 200) throw new Error(`ledger: ${res.statusCode} ${res.body}`);
  return res.json() as Decision[];
}

export async function until<T>(read: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

let seq = 9_000_000;
/** A signal id no stored signal uses. */
export const freshSignalId = (): string => String(++seq);

/** The real time moved on by `skip`: a rules module's clock, driven past a window or a cache's age. */
export function skippingClock(): Clock & { skip(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
    skip(ms) {
      offset += ms;
    },
  };
}
