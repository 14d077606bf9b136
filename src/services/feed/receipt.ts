import { z } from 'zod';
import { Decision } from '../../contracts/rules';
import { SignalList, SourceReceipts, type Signal, type SourceReceipt } from '../../contracts/signals';
import {
  formatSpan,
  publishedMs,
  signalStages,
  type SignalTimeline,
  type Stage,
} from '../../contracts/timeline';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import type { FeedSignal } from './types';

/**
 * Receipts in the browser: how long before a headline reached this screen it was published, where that
 * time went stage by stage, and what the rules did with it and when.
 */

/** The signal's timeline; a copy saved before timelines existed has its two times at least. */
export function timelineOf(s: Signal): SignalTimeline {
  return s.timeline ?? { published_at: s.published_at, received_at: s.received_at, analysed_at: null };
}

/** "published 1.2 s before it reached you", or null when the source gave no (believable) publication time. */
export function ageLabel(s: FeedSignal): string | null {
  const t = timelineOf(s);
  const published = publishedMs(t.published_at, Date.parse(t.received_at));
  if (published === null) return null;
  return `published ${formatSpan(s.client_received_at - published)} before it reached you`;
}

/** Each stage of the signal's way to this screen, the last one ending when it reached you. */
export function stagesOf(s: FeedSignal): Stage[] {
  return signalStages(timelineOf(s), s.client_received_at);
}

/** `1180 ms`, with the span in words beside it once it runs into seconds; `—` when a time is missing. */
export function stageMs(ms: number | null): string {
  if (ms === null) return '—';
  const exact = `${Math.round(ms)} ms`;
  return Math.abs(ms) >= 10_000 ? `${exact} (${formatSpan(ms)})` : exact;
}

/** The hover text of the card's age: every stage in ms, one a line. */
export function stagesText(s: FeedSignal): string {
  return stagesOf(s)
    .map((st) => `${st.name}: ${stageMs(st.ms)}`)
    .join('\n');
}

/** A source's figures as words: lag `42 s / 7 min` (p50 / p95), items per hour, the last item's age. */
export function sourceFigures(r: SourceReceipt | undefined): { lag: string; perHour: string; last: string } {
  if (r === undefined) return { lag: '—', perHour: '—', last: '—' };
  const span = (ms: number | null) => (ms === null ? '—' : formatSpan(ms));
  return {
    lag: `${span(r.lag_p50_ms)} / ${span(r.lag_p95_ms)}${r.lagging ? ' (degraded)' : ''}`,
    perHour: String(r.items_per_hour),
    last: r.last_item_age_ms === null ? 'none yet' : `${formatSpan(r.last_item_age_ms)} ago`,
  };
}

export type Fetched<T> = { ok: true; value: T } | { ok: false; message: string };

async function attempt<T>(fallback: string, run: () => Promise<T>): Promise<Fetched<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, message: errorMessage(error, fallback) };
  }
}

/** The server's calls for receipts. */
export function receiptsApi(main: ApiClient) {
  return {
    /** One signal by id from the history (null when there is none). */
    signal: (id: string) =>
      attempt('Failed to load the signal.', async () => {
        const [found] = await main.call(SignalList, `/signals?before=${BigInt(id) + 1n}&limit=1`);
        return found?.id === id ? found : null;
      }),
    /** The caller's rule decisions on one signal. */
    decisions: (signalId: string) =>
      attempt('Failed to load the decision ledger.', () =>
        main.call(z.array(Decision), `/rules/ledger?signal_id=${encodeURIComponent(signalId)}`),
      ),
    sources: () =>
      attempt('Failed to load the sources.', () => main.call(SourceReceipts, '/signals/sources')),
  };
}
