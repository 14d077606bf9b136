import { z } from 'zod';
import { decimal } from './numbers';
import { AnalysisEngine, EventType, Sentiment } from './analysis';

/**
 * A news signal (spec §3) as the server stores it, answers it from `GET /api/signals` and pushes it on
 * `GET /api/signals/stream`. A signal is published twice: at arrival with `analysis.status =
 * "analyzing"`, then with `"completed"` and the analyzer's result; a later publish of the same `id`
 * replaces the earlier one (also when another source reports the same story: `also_reported_by`).
 */

export const NEWS_SOURCE_KINDS = [
  'replay',
  'rss',
  'binance-announcements',
  'webhook',
  'x',
  'telegram',
] as const;
export const NewsSourceKind = z.enum(NEWS_SOURCE_KINDS);
export type NewsSourceKind = z.infer<typeof NewsSourceKind>;

const Ticker = z.string().regex(/^[0-9A-Z]+$/);

export const SignalMetadata = z.object({
  url: z.string().nullable(),
  icon: z.string().nullable(),
  source_name: z.string(),
  username: z.string().nullable(),
  media_urls: z.array(z.string()),
});
export type SignalMetadata = z.infer<typeof SignalMetadata>;

/** A quoted post (a retweet's original, a forwarded message). */
export const QuoteData = z.object({
  source_name: z.string().nullable(),
  username: z.string().nullable(),
  icon: z.string().nullable(),
  content: z.string(),
  media_urls: z.array(z.string()),
});
export type QuoteData = z.infer<typeof QuoteData>;

export const AnalyzingState = z.object({
  status: z.literal('analyzing'),
  impact_score: z.null(),
  nlp: z.null(),
});

export const CompletedState = z.object({
  status: z.literal('completed'),
  /** 0-100. */
  impact_score: z.number().min(0).max(100),
  nlp: z.object({ sentiment: Sentiment, reasoning: z.string() }),
  engine: AnalysisEngine,
  /** Which version of that engine (the local model's, or the LLM prompt's). */
  engine_version: z.string().optional(),
  disagreement: z.boolean().optional(),
});

export const SignalAnalysis = z.discriminatedUnion('status', [AnalyzingState, CompletedState]);
export type SignalAnalysis = z.infer<typeof SignalAnalysis>;

/** Another source that carried the same story within 30 minutes of the first one. */
export const AlsoReportedBy = z.object({
  source_name: z.string(),
  username: z.string().nullable(),
  url: z.string().nullable(),
  received_at: z.string(),
});
export type AlsoReportedBy = z.infer<typeof AlsoReportedBy>;

export const Signal = z.object({
  /** Decimal digits; ascending with arrival. `signal_id` carries the same value. */
  id: z.string(),
  signal_id: z.string(),
  /** The primary ticker (`BTC`), null until analysed or when none is named. */
  asset: Ticker.nullable(),
  assets: z.array(Ticker),
  content: z.string(),
  metadata: SignalMetadata,
  quote_data: QuoteData.nullable(),
  analysis: SignalAnalysis,
  event_type: EventType.nullable(),
  /** USDT price of each tagged asset at the moment the item arrived, so every client measures alike. */
  initial_prices: z.record(z.string(), z.number()),
  /** Which of the server's sources delivered it. */
  source: NewsSourceKind,
  published_at: z.string().nullable(),
  received_at: z.string(),
  also_reported_by: z.array(AlsoReportedBy),
});
export type Signal = z.infer<typeof Signal>;

export const SignalList = z.array(Signal);

/** `GET /api/signals` query: newest first, `before` an id for the next page. */
export const SignalsQuery = z.object({
  limit: decimal(z.number().int().min(1).max(200)).default(50),
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, { error: 'a signal id' })
    .optional(),
  asset: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[0-9A-Z]{1,20}$/, { error: 'a ticker such as BTC' })
    .optional(),
  sentiment: Sentiment.optional(),
  min_impact: decimal(z.number().min(0).max(100)).optional(),
});
export type SignalsQuery = z.infer<typeof SignalsQuery>;

/** An http(s) address of at most 2,048 characters (links, icons, media). */
const HttpUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** One news item as a source (or a webhook caller) hands it in. */
export const IngestItem = z.object({
  content: z.string().trim().min(1).max(10_000),
  source_name: z.string().trim().min(1).max(100),
  username: z.string().trim().max(100).nullish(),
  icon: HttpUrl.nullish(),
  url: HttpUrl.nullish(),
  media_urls: z.array(HttpUrl).max(8).default([]),
  quote: z
    .object({
      content: z.string().trim().min(1).max(10_000),
      source_name: z.string().trim().max(100).nullish(),
      username: z.string().trim().max(100).nullish(),
      icon: HttpUrl.nullish(),
      media_urls: z.array(HttpUrl).max(8).default([]),
    })
    .nullish(),
  published_at: z.iso.datetime({ offset: true }).nullish(),
  /** The caller's own id of the item; the same id twice is a duplicate. */
  external_id: z.string().trim().min(1).max(200).nullish(),
});
export type IngestItem = z.infer<typeof IngestItem>;

/** `POST /api/signals/ingest` body: one item, `{items: [...]}` or a bare array (at most 100). */
export const IngestBody = z.union([
  z.object({ items: z.array(IngestItem).min(1).max(100) }),
  z.array(IngestItem).min(1).max(100),
  IngestItem,
]);

export const IngestOutcome = z.object({
  /** `created`: a new signal; `clustered`: credited to an earlier one; `duplicate`, `empty`: dropped. */
  result: z.enum(['created', 'clustered', 'duplicate', 'empty']),
  id: z.string().nullable(),
});
export type IngestOutcome = z.infer<typeof IngestOutcome>;
export const IngestResponse = z.object({ accepted: z.number(), results: z.array(IngestOutcome) });
export type IngestResponse = z.infer<typeof IngestResponse>;

/** State of one source as the stream's `status` event reports it. */
export const SourceState = z.object({
  name: NewsSourceKind,
  /** `live`: polling or connected; `replay`: the bundled offline set; `degraded`: failing, retrying. */
  state: z.enum(['live', 'replay', 'degraded']),
  detail: z.string().optional(),
});
export type SourceState = z.infer<typeof SourceState>;

/** `event: status` payload: sent on connect and whenever a source changes state. */
export const StreamStatus = z.object({
  connected: z.literal(true),
  sources: z.array(SourceState),
  analyzer: z.enum(['local', 'llm']),
  /** Milliseconds between heartbeat comments. */
  heartbeat_ms: z.number(),
  /** Signals replayed from the store after a `Last-Event-ID` resume. */
  resumed: z.number(),
});
export type StreamStatus = z.infer<typeof StreamStatus>;

/** The stream's messages by SSE event name; each frame also carries an `id:` (resume cursor). */
export const StreamMessages = { status: StreamStatus, signal: Signal } as const;
export type StreamMessage = { event: 'status'; data: StreamStatus } | { event: 'signal'; data: Signal };
