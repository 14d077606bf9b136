import { z } from 'zod';
import { VENUE_LABELS, type AccountVenue } from './venues';

/**
 * Receipts: where the time went between a headline's publication and what it caused. Every signal
 * carries its timeline, every rule decision the times it was decided, sent and acknowledged; both sides
 * measure a headline's age the same way, from these helpers.
 */

/** A signal's timeline (ISO times). `sent_at` is set on each stream event: when the server sent it. */
export const SignalTimeline = z.object({
  /** When the source says it published the item; null when it does not say. */
  published_at: z.string().nullable(),
  received_at: z.string(),
  analysed_at: z.string().nullable(),
  sent_at: z.string().optional(),
});
export type SignalTimeline = z.infer<typeof SignalTimeline>;

/**
 * A publication time this far ahead of the receipt is a wrong clock or a wrong field, not news from the
 * future: it is treated as unknown.
 */
export const FUTURE_TOLERANCE_MS = 5_000;

/** The publication time (ms) when it is known and believable against the receipt, else null. */
export function publishedMs(published: string | null | undefined, receivedMs: number): number | null {
  if (published === null || published === undefined) return null;
  const at = Date.parse(published);
  if (!Number.isFinite(at) || at - receivedMs > FUTURE_TOLERANCE_MS) return null;
  return at;
}

/** When the news happened as far as anyone can tell: the earlier of its receipt and its publication. */
export function newsStartMs(published: string | null | undefined, received: string): number {
  const receivedMs = Date.parse(received);
  const pub = publishedMs(published, receivedMs);
  return pub === null ? receivedMs : Math.min(pub, receivedMs);
}

/** `12 ms`, `1.2 s`, `12 s`, `12 min`, `3.5 h`, `2 d`: a span as a trader reads it. */
export function formatSpan(ms: number): string {
  const v = Math.max(0, ms);
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 10_000) return `${(v / 1000).toFixed(1)} s`;
  if (v < 60_000) return `${Math.round(v / 1000)} s`;
  if (v < 3_600_000) return `${Math.round(v / 60_000)} min`;
  if (v < 86_400_000) return `${(v / 3_600_000).toFixed(1)} h`;
  return `${Math.round(v / 86_400_000)} d`;
}

/** One step of a receipt: its name and how long it took (null when a time is missing). */
export interface Stage {
  name: string;
  ms: number | null;
}

const diff = (from: string | null | undefined, to: string | null | undefined): number | null => {
  if (from === null || from === undefined || to === null || to === undefined) return null;
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Number.isFinite(a) && Number.isFinite(b) ? b - a : null;
};

/**
 * A signal's stages in ms: publication to receipt (when the publication time is believable), receipt to
 * analysis, analysis to the server's send, and send to this client (`reachedMs`, when given).
 */
export function signalStages(t: SignalTimeline, reachedMs?: number): Stage[] {
  const received = Date.parse(t.received_at);
  const pub = publishedMs(t.published_at, received);
  const stages: Stage[] = [
    { name: 'published → received', ms: pub === null ? null : received - pub },
    { name: 'received → analysed', ms: diff(t.received_at, t.analysed_at) },
    { name: 'analysed → sent', ms: diff(t.analysed_at, t.sent_at) },
  ];
  if (reachedMs !== undefined)
    stages.push({
      name: 'sent → reached you',
      ms: t.sent_at === undefined ? null : reachedMs - Date.parse(t.sent_at),
    });
  return stages;
}

/** A decision's times (ISO): the news's, then the rule's. */
export const DecisionTimeline = z.object({
  published_at: z.string().nullable(),
  received_at: z.string().nullable(),
  analysed_at: z.string().nullable(),
  decided_at: z.string(),
  sent_at: z.string().nullable(),
  acked_at: z.string().nullable(),
  /** Of sent → acked: the placement call to the venue (ms), and what the venue says it spent itself. */
  venue_ms: z.number().nullable().optional(),
  venue_own_ms: z.number().nullable().optional(),
});
export type DecisionTimeline = z.infer<typeof DecisionTimeline>;

/**
 * "43 ms after the news: analysed 3, decided 1, ours 4, OKX 35 (its own 1.5)": the total from receipt to
 * the venue's acknowledgement and its parts (they add up): ours is the order path around the placement
 * call, the venue's is that call (network and venue), and its own what the venue says it spent. Null
 * without an acknowledgement.
 */
export function decisionReceipt(t: DecisionTimeline, venue: AccountVenue): string | null {
  const total = diff(t.received_at, t.acked_at);
  if (total === null) return null;
  const sentToAck = diff(t.sent_at, t.acked_at);
  const venueMs = t.venue_ms ?? null;
  const split = sentToAck !== null && venueMs !== null && venueMs <= sentToAck;
  const name = venue === 'paper' ? 'paper' : VENUE_LABELS[venue];
  const own = t.venue_own_ms ?? null;
  const venuePart = (ms: number) =>
    `${name} ${Math.round(ms)}${own === null ? '' : ` (its own ${Number(own.toFixed(1))})`}`;
  const parts: (readonly [string, number | null])[] = [
    ['analysed', diff(t.received_at, t.analysed_at)],
    ['decided', diff(t.analysed_at, t.sent_at)],
  ];
  const known = parts
    .filter((p): p is readonly [string, number] => p[1] !== null)
    .map(([n, ms]) => `${n} ${Math.round(ms)}`);
  if (split) known.push(`ours ${Math.round(sentToAck - venueMs)}`, venuePart(venueMs));
  else if (sentToAck !== null) known.push(venuePart(sentToAck));
  const tail = known.length === 0 ? '' : `: ${known.join(', ')}`;
  return `${Math.round(total)} ms after the news${tail}`;
}
