import { z } from 'zod';

/**
 * The analysis of one news item (docs/product.md §3: `analysis.impact_score`, `analysis.nlp.sentiment`,
 * `analysis.nlp.reasoning`, plus `asset`/`assets` and an event type). The news module calls the
 * analyzer with an `AnalysisInput` and copies the `AnalysisResult` into the signal it publishes.
 */

/** From an investor's view of the tagged assets (docs/labelling.md). */
export const Sentiment = z.enum(['positive', 'negative', 'neutral']);
export type Sentiment = z.infer<typeof Sentiment>;

/** What happened; drives the impact score and the reasoning (docs/labelling.md lists each). */
export const EventType = z.enum([
  'listing',
  'delisting',
  'hack',
  'depeg',
  'withdrawals_halted',
  'insolvency',
  'regulation',
  'etf',
  'partnership',
  'adoption',
  'upgrade',
  'outage',
  'unlock',
  'buyback_burn',
  'fundraise',
  'macro',
  'liquidation',
  'whale_transfer',
  'price',
  'other',
]);
export type EventType = z.infer<typeof EventType>;

/** Which engine produced a result; `local-fallback` means the LLM failed and the local result was used. */
export const AnalysisEngine = z.enum(['local', 'llm', 'local-fallback']);
export type AnalysisEngine = z.infer<typeof AnalysisEngine>;

export const AnalysisQuote = z.object({
  content: z.string(),
  source_name: z.string().optional(),
  username: z.string().optional(),
});
export type AnalysisQuote = z.infer<typeof AnalysisQuote>;

export const AnalysisInput = z.object({
  content: z.string(),
  /** e.g. `Binance Announcements`, `Reuters`, `X`: the source's authority weighs on the impact. */
  source_name: z.string(),
  username: z.string().optional(),
  /** A quoted post; its text counts as context for assets and the event. */
  quote: AnalysisQuote.optional(),
  url: z.string().optional(),
  published_at: z.string().optional(),
});
export type AnalysisInput = z.infer<typeof AnalysisInput>;

/** What the product can do with one tag (src/contracts/tradability.ts decides both flags). */
export const AssetDetail = z.object({
  symbol: z.string().regex(/^[0-9A-Z]+$/),
  /** The product has a futures contract for it: the tag may be traded. */
  tradable: z.boolean(),
  /** A stablecoin (`USDC`): tagged when the news is about it, shown, never traded. */
  stablecoin: z.boolean(),
});
export type AssetDetail = z.infer<typeof AssetDetail>;

export const AnalysisResult = z.object({
  /**
   * The coins' tickers (`BTC`, `PEPE`, `FTT`, `USDC`), uppercase; a stablecoin only when the news is
   * about it (docs/labelling.md §5). A coin need not trade here (`PEPE` trades on the `1000PEPEUSDT`
   * contract: that mapping belongs to trading and pricing; `FTT` and `USDC` do not trade at all).
   */
  assets: z.array(z.string().regex(/^[0-9A-Z]+$/)),
  /**
   * One per tag, in the same order: whether it trades here and whether it is a stablecoin. Optional so
   * rows stored before it existed still parse.
   */
  asset_details: z.array(AssetDetail).optional(),
  /** The primary asset (the subject of the item), or null when none is named (e.g. macro news). */
  asset: z.string().nullable(),
  sentiment: Sentiment,
  /** 0-100, calibrated: 80+ worth an alert, 50-80 notable, below 50 background (docs/analysis.md). */
  impact_score: z.number().min(0).max(100),
  /** One sentence naming the event, the key phrase, the assets and why it matters. */
  reasoning: z.string().min(1),
  event_type: EventType,
  engine: AnalysisEngine,
  /**
   * Which version of that engine (`local-2`, `llm-prompt-2`); optional so rows stored before it existed
   * still parse.
   */
  engine_version: z.string().optional(),
  /** LLM mode only: true when the LLM and the local engine disagree on sentiment or the primary asset. */
  disagreement: z.boolean().optional(),
});
export type AnalysisResult = z.infer<typeof AnalysisResult>;
