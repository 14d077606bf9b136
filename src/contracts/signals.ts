import { z } from 'zod';
import { decimal } from './numbers';
import { AnalysisEngine, EventType, Sentiment } from './analysis';
import { SignalTimeline } from './timeline';

/**
 * A news signal (docs/product.md §3) as the server stores it, answers it from `GET /api/signals` and pushes it on
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
  /** 0-100: the analyzer's score, or once its event type is calibrated, what the market made of it. */
  impact_score: z.number().min(0).max(100),
  /** The analyzer's own score, when a calibration changed it (docs/analysis.md#calibration). */
  impact_raw: z.number().min(0).max(100).optional(),
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

/**
 * What a retraction says of the story it takes back: it denies it ("X denies…", "fake", "did not
 * file"), corrects it, withdraws it (the post was deleted), or says the account that posted it was
 * hacked or the post unauthorized.
 */
export const RetractionKind = z.enum(['denial', 'correction', 'withdrawal', 'compromised']);
export type RetractionKind = z.infer<typeof RetractionKind>;

/** On a retracted signal: the later signal that retracts it. */
export const Retraction = z.object({
  /** The retracting signal's id. */
  signal_id: z.string(),
  /** When the retracting signal arrived. */
  received_at: z.string(),
  /** The retraction's own text (at most 500 characters): what the card shows on hover. */
  reason: z.string(),
  kind: RetractionKind,
});
export type Retraction = z.infer<typeof Retraction>;

/**
 * On a story that a later signal from a less trusted source reads as retracting: the card shows it
 * disputed, not retracted, and nothing opened on it is closed by it.
 */
export const Dispute = Retraction.extend({
  /** The disputing source's name. */
  source_name: z.string(),
});
export type Dispute = z.infer<typeof Dispute>;

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
  /**
   * Set once a later signal retracts this one. The server always sends it (null when not retracted);
   * optional so that copies saved before retractions existed still read.
   */
  retraction: Retraction.nullable().optional(),
  /** On a retraction linked to its story: the id of the signal it retracts (null otherwise). */
  retracts: z.string().nullable().optional(),
  /** Set once a less trusted source disputes it (null otherwise); optional like `retraction`. */
  dispute: Dispute.nullable().optional(),
  /**
   * Where the time went: published, received, analysed, and on a stream event the server's send time.
   * The server always sends it; optional so that copies saved before it existed still read.
   */
  timeline: SignalTimeline.optional(),
  /** From a source's first poll after start: old news that was waiting there, never traded by a rule. */
  backlog: z.boolean().optional(),
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

const PUBLISHED_AT_ERROR =
  'published_at must be an ISO 8601 time with its zone (2026-03-05T14:02:00Z) or epoch milliseconds.';

/**
 * When the item was published: an ISO 8601 time with its zone, or epoch milliseconds (13 digits; seconds
 * are refused rather than read as 1970). Either way it becomes an ISO time.
 */
export const PublishedAt = z.union(
  [
    z.iso.datetime({ offset: true, error: PUBLISHED_AT_ERROR }),
    z
      .number({ error: PUBLISHED_AT_ERROR })
      .int({ error: PUBLISHED_AT_ERROR })
      .min(100_000_000_000, { error: PUBLISHED_AT_ERROR })
      .max(8_640_000_000_000_000, { error: PUBLISHED_AT_ERROR })
      .transform((ms) => new Date(ms).toISOString()),
  ],
  { error: PUBLISHED_AT_ERROR },
);

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
  published_at: PublishedAt.nullish(),
  /** The caller's own id of the item; the same id twice is a duplicate. */
  external_id: z.string().trim().min(1).max(200).nullish(),
});
export type IngestItem = z.infer<typeof IngestItem>;

/** `POST /api/signals/ingest` body: one item, `{items: [...]}` or a bare array (at most 100). */
const IngestItems = z.object({ items: z.array(IngestItem).min(1).max(100) });
const IngestArray = z.array(IngestItem).min(1).max(100);
export const IngestBody = z.union([IngestItems, IngestArray, IngestItem]);
export type IngestBody = z.infer<typeof IngestBody>;

/**
 * The form of `IngestBody` a body takes, to parse it with: a bad field is then named with its own
 * message (`published_at must be…`) rather than the union's "Invalid input" for the whole body.
 */
export function ingestForm(body: unknown): z.ZodType<IngestBody> {
  if (Array.isArray(body)) return IngestArray;
  if (typeof body === 'object' && body !== null && 'items' in body) return IngestItems;
  return IngestItem;
}

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

/** One source's receipts over the last hour: how late its items arrive after publication, and how many. */
export const SourceReceipt = z.object({
  name: NewsSourceKind,
  state: SourceState.shape.state,
  detail: z.string().optional(),
  /** Publication to arrival, over the last hour's items that said when they were published (not backlog). */
  lag_p50_ms: z.number().nullable(),
  lag_p95_ms: z.number().nullable(),
  /** Items received in the last hour. */
  items_per_hour: z.number(),
  last_item_at: z.string().nullable(),
  last_item_age_ms: z.number().nullable(),
  /** Its p95 lag is past the threshold: health names it degraded. */
  lagging: z.boolean(),
});
export type SourceReceipt = z.infer<typeof SourceReceipt>;

/** `GET /api/signals/sources`. */
export const SourceReceipts = z.object({
  /** The p95 lag past which a source is named degraded (`SOURCE_LAG_DEGRADED_SECONDS`). */
  threshold_ms: z.number(),
  sources: z.array(SourceReceipt),
});
export type SourceReceipts = z.infer<typeof SourceReceipts>;
