import { AnalysisEngine, EventType, Sentiment } from '../../../src/contracts/analysis';
import {
  Dispute,
  NewsSourceKind,
  RetractionKind,
  type Retraction,
  type Signal,
  type SignalAnalysis,
} from '../../../src/contracts/signals';
import type { SignalRow } from './news.repo';

function analysisOf(row: SignalRow): SignalAnalysis {
  const sentiment = Sentiment.safeParse(row.sentiment);
  if (row.status !== 'completed' || !sentiment.success || row.impactScore === null)
    return { status: 'analyzing', impact_score: null, nlp: null };
  const engine = AnalysisEngine.safeParse(row.engine);
  return {
    status: 'completed',
    impact_score: Math.round(row.impactScore * 10) / 10,
    ...(row.impactRaw === null ? {} : { impact_raw: Math.round(row.impactRaw * 10) / 10 }),
    nlp: { sentiment: sentiment.data, reasoning: row.reasoning ?? '' },
    engine: engine.success ? engine.data : 'local',
    ...(row.engineVersion === null ? {} : { engine_version: row.engineVersion }),
    ...(row.disagreement === null ? {} : { disagreement: row.disagreement }),
  };
}

function retractionOf(row: SignalRow): Retraction | null {
  if (row.retractedBy === null || row.retractedAt === null) return null;
  const kind = RetractionKind.safeParse(row.retractionKind);
  return {
    signal_id: String(row.retractedBy),
    received_at: row.retractedAt.toISOString(),
    reason: row.retractionReason ?? '',
    kind: kind.success ? kind.data : 'denial',
  };
}

/** A stored row as the API and the stream show it (docs/product.md §3). */
export function toSignal(row: SignalRow): Signal {
  const id = String(row.id);
  const event = EventType.safeParse(row.eventType);
  const source = NewsSourceKind.safeParse(row.source);
  return {
    id,
    signal_id: id,
    asset: row.asset,
    assets: row.assets,
    content: row.content,
    metadata: {
      url: row.url,
      icon: row.icon,
      source_name: row.sourceName,
      username: row.username,
      media_urls: row.mediaUrls,
    },
    quote_data: row.quote,
    analysis: analysisOf(row),
    event_type: event.success ? event.data : null,
    initial_prices: row.initialPrices,
    source: source.success ? source.data : 'webhook',
    published_at: row.publishedAt?.toISOString() ?? null,
    received_at: row.receivedAt.toISOString(),
    also_reported_by: row.alsoReportedBy,
    retraction: retractionOf(row),
    retracts: row.retractsId === null ? null : String(row.retractsId),
    dispute: row.dispute === null ? null : (Dispute.safeParse(row.dispute).data ?? null),
    timeline: {
      published_at: row.publishedAt?.toISOString() ?? null,
      received_at: row.receivedAt.toISOString(),
      analysed_at: row.analysedAt?.toISOString() ?? null,
    },
    backlog: row.backlog,
  };
}
