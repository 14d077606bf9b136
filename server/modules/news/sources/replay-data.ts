import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EventType, Sentiment } from '../../../../src/contracts/analysis';
import { fromRoot } from '../../../paths';

/**
 * The bundled replay set: original items written for this project (not copied from any outlet, and not
 * the analysis module's training headlines), one JSON line each in `replay.jsonl`, in the order they
 * play, with their labels (docs/labelling.md; the analysis evaluation reads them as its out-of-author
 * set). Authors other than the exchanges are fictional. Icons and media are files in
 * `server/modules/news/assets/`, served at `/api/news/assets/…`; each item's article page is served at
 * `/api/news/articles/<slug>`, so links work offline.
 */

export interface ReplayAuthor {
  source_name: string;
  username: string;
  icon: string;
}

export const REPLAY_AUTHORS = {
  binance: { source_name: 'Binance Announcements', username: 'binance', icon: 'binance.svg' },
  coinbase: { source_name: 'Coinbase Markets', username: 'CoinbaseMarkets', icon: 'coinbase.svg' },
  okx: { source_name: 'OKX Announcements', username: 'okx', icon: 'okx.svg' },
  bybit: { source_name: 'Bybit Announcements', username: 'Bybit_Official', icon: 'bybit.svg' },
  upbit: { source_name: 'Upbit Notice', username: 'upbit', icon: 'upbit.svg' },
  wire: { source_name: 'Blockwire News', username: 'blockwire', icon: 'wire.svg' },
  ledger: { source_name: 'The Ledger Desk', username: 'ledgerdesk', icon: 'ledger.svg' },
  macro: { source_name: 'Macro Pulse', username: 'macropulse', icon: 'macro.svg' },
  policy: { source_name: 'Policy Watch', username: 'policywatch', icon: 'policy.svg' },
  chain: { source_name: 'On-chain Monitor', username: 'onchainmonitor', icon: 'chain.svg' },
  whale: { source_name: 'Whale Tracker', username: 'whaletracker', icon: 'whale.svg' },
  sec: { source_name: 'X', username: 'secops_alerts', icon: 'shield.svg' },
  trader: { source_name: 'X', username: 'cryptotrader_k', icon: 'x-trader.svg' },
  degen: { source_name: 'X', username: 'degen_daily', icon: 'x-degen.svg' },
  maven: { source_name: 'X', username: 'marketmaven', icon: 'x-maven.svg' },
  tg: { source_name: 'Telegram', username: 'Alpha Calls', icon: 'telegram.svg' },
} as const satisfies Record<string, ReplayAuthor>;

export type AuthorKey = keyof typeof REPLAY_AUTHORS;

const AuthorKeySchema = z.enum(Object.keys(REPLAY_AUTHORS) as [AuthorKey, ...AuthorKey[]]);

export const ReplayEntry = z.object({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,80}$/),
  author: AuthorKeySchema,
  /** The headline or post, as the labels read it. */
  text: z.string().min(1),
  /** More paragraphs of a long post (the card folds it behind Read More; the article shows it). */
  body: z.string().min(1).optional(),
  quote: z.object({ author: AuthorKeySchema, text: z.string().min(1) }).optional(),
  media: z.array(z.string().regex(/^[a-z0-9-]+\.(svg|png)$/)).optional(),
  label: z.object({
    sentiment: Sentiment,
    assets: z.array(z.string()),
    event_type: EventType,
    impact: z.number().int().min(0).max(100),
  }),
});
export type ReplayEntry = z.infer<typeof ReplayEntry>;

export const REPLAY_FILE = fromRoot('server/modules/news/sources/replay.jsonl');

/** Reads and checks the replay file; a bad line throws with its line number. */
export function loadReplayItems(file = REPLAY_FILE): ReplayEntry[] {
  const items = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const parsed = ReplayEntry.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(`${file}:${i + 1}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return parsed.data;
    });
  const slugs = new Set(items.map((e) => e.slug));
  if (slugs.size !== items.length) throw new Error(`${file}: two items share a slug`);
  return items;
}

export const REPLAY_ITEMS: readonly ReplayEntry[] = loadReplayItems();

/** An item's whole text as a card shows it: the post, then its further paragraphs. */
export const replayContent = (e: ReplayEntry): string =>
  e.body === undefined ? e.text : `${e.text}\n\n${e.body}`;
