import { z } from 'zod';
import { Signal } from '../../contracts/signals';

/**
 * A signal as the browser keeps it (docs/product.md §3): the server's Signal plus the client-side extras,
 * `client_received_at` (Unix ms, when this browser first saw it). `initial_prices` are the server's
 * only: an asset without one shows no change until the server sends it.
 */
export const FeedSignal = Signal.extend({ client_received_at: z.number() });
export type FeedSignal = z.infer<typeof FeedSignal>;

export type Sentiment = 'positive' | 'negative' | 'neutral';

/** The sentiment of a completed signal, null while it is analyzing. */
export const sentimentOf = (s: Signal): Sentiment | null =>
  s.analysis.status === 'completed' ? s.analysis.nlp.sentiment : null;

/** The impact 0-100 of a completed signal, null while it is analyzing. */
export const impactOf = (s: Signal): number | null =>
  s.analysis.status === 'completed' ? s.analysis.impact_score : null;

/** Storage keys of docs/product.md §7, word for word. */
export const FEED_KEYS = {
  signals: 'cryptoNewsSignals',
  amounts: 'quickTradeAmounts',
  notifications: 'notificationSettings',
} as const;

/** docs/product.md §9: signals kept and shown. */
export const FEED_CAP = 50;
