import { IngestResponse, type IngestOutcome } from '../../../src/contracts/signals';
import type { Answer, Api } from './api';

/** The assets the scenario's rules trade, with a name the analyzer also knows. */
export const ASSETS = [
  { ticker: 'SOL', name: 'Solana', side: 'long' },
  { ticker: 'ETH', name: 'Ethereum', side: 'short' },
  { ticker: 'XRP', name: 'Ripple', side: 'long' },
] as const;

const TEMPLATES = [
  (name: string, t: string, n: number) =>
    `${name} (${t}) sees record inflows of ${n} million dollars this week`,
  (name: string, t: string, n: number) =>
    `Coinbase lists ${t} perpetual futures; order book ${n} opens for ${name}`,
  (name: string, t: string, n: number) => `${name} developers ship upgrade ${n} for ${t} to mainnet`,
  (_name: string, t: string, n: number) => `Whale wallet moves ${n} ${t} to cold storage overnight`,
  (name: string, t: string, n: number) => `Asset manager buys ${n} ${t} as ${name} treasury grows`,
] as const;

export interface NewsItem {
  content: string;
  source_name: string;
  external_id: string;
}

/**
 * The `i`-th item of a burst: about one asset, with a number no other item has, so that no two items
 * read as one story (clustering would credit the second to the first and fire nothing for it).
 */
export function newsItem(i: number): NewsItem {
  const asset = ASSETS[i % ASSETS.length] ?? ASSETS[0];
  const template = TEMPLATES[Math.floor(i / ASSETS.length) % TEMPLATES.length] ?? TEMPLATES[0];
  return {
    content: template(asset.name, asset.ticker, 1000 + i * 17),
    source_name: 'Wire',
    external_id: `news-${i}`,
  };
}

export interface SentItem {
  item: NewsItem;
  first: Answer | null;
  /** What the webhook said it did with the item, once a try was answered 202. */
  outcome: IngestOutcome | null;
}

/** Reads a 202 from the webhook into the item's outcome; answers whether it was one. */
export function settleItem(sent: SentItem, answer: Answer | null): boolean {
  if (answer === null || answer.status !== 202) return false;
  const parsed = IngestResponse.safeParse(answer.body);
  if (!parsed.success || parsed.data.results.length !== 1) return false;
  sent.outcome = parsed.data.results[0] ?? null;
  return true;
}

/**
 * News sent to the webhook `concurrency` at a time, one item per request, until `stop()`; each item is
 * appended to `sent` (its index there is its number, so items of later bursts are new stories).
 */
export function startNewsBurst(opts: { webhook: Api; sent: SentItem[]; concurrency: number }) {
  let stopped = false;
  let acked = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const workers = Array.from({ length: opts.concurrency }, async () => {
    while (!stopped) {
      const sent: SentItem = { item: newsItem(opts.sent.length), first: null, outcome: null };
      opts.sent.push(sent);
      const answer = await opts.webhook.send('POST', '/signals/ingest', { ...sent.item });
      sent.first = answer;
      if (settleItem(sent, answer)) {
        acked += 1;
        for (const w of waiters.filter((x) => acked >= x.n)) w.resolve();
      }
      if (answer === null) return;
    }
  });
  const done = Promise.all(workers).then(() => undefined);
  return {
    /** Resolves once `n` items of this burst were acknowledged; rejects if the burst ends before. */
    acknowledged(n: number): Promise<void> {
      if (acked >= n) return Promise.resolve();
      return Promise.race([
        new Promise<void>((resolve) => waiters.push({ n, resolve })),
        done.then(() => {
          throw new Error(`the news burst ended after ${acked} acknowledged items, before ${n}`);
        }),
      ]);
    },
    stop(): void {
      stopped = true;
    },
    done,
  };
}
