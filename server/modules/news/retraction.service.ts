import { RetractionKind } from '../../../src/contracts/signals';
import type { Bus } from '../../plugins/bus';
import type { AnalysisColumns, NewsRepo, SignalRow } from './news.repo';
import type { NewsLog } from './news.types';
import { findRetracted, RETRACTION_WINDOW_MS, retractionCue, type RetractionCandidate } from './retraction';

/** The retraction's text kept on the retracted signal (what its card shows on hover). */
export const REASON_CHARS = 500;
/** Most recent stories a retraction is compared with. */
const MAX_CANDIDATES = 500;

/** What completing an analysed signal stored: the signal, and the story it retracted if it is a retraction. */
export interface Completed {
  done: SignalRow | null;
  retracted: SignalRow | null;
}

/** Account names a retraction may speak for: its own, and every word of its text (`@SECGov`, "Binance"). */
function accountsNamed(content: string, username: string | null): string[] {
  const out = new Set<string>();
  if (username !== null) out.add(username.toLowerCase().replace(/^@/, ''));
  for (const m of content.matchAll(/[A-Za-z0-9_]{3,30}/g)) out.add(m[0].toLowerCase());
  return [...out].slice(0, 100);
}

/**
 * Completes analysed signals, and when one reads as a retraction, links it to the recent story it
 * retracts: both rows change in one transaction, then `signal.retracted` goes on the bus.
 */
export class Retractions {
  constructor(
    private readonly deps: {
      repo: NewsRepo;
      bus: Bus;
      log: NewsLog;
      windowMs?: number;
      /**
       * Sources only Premium accounts see. A retraction from one marks only stories of such sources: the
       * mark carries its words, and a public story's mark is public.
       */
      premiumSources?: ReadonlySet<string>;
    },
  ) {}

  /** Stores the analysis of `row`; for a retraction, also the link to its story when one is found. */
  async complete(row: SignalRow, analysis: AnalysisColumns): Promise<Completed> {
    const { repo } = this.deps;
    const cue = retractionCue(row.content);
    if (cue !== null) {
      const at = row.receivedAt.getTime();
      const rows = await repo.retractionCandidates({
        before: row.id,
        since: new Date(at - (this.deps.windowMs ?? RETRACTION_WINDOW_MS)),
        assets: analysis.assets,
        accounts: accountsNamed(row.content, row.username),
        limit: MAX_CANDIDATES,
      });
      const premium = this.deps.premiumSources ?? new Set<string>();
      const candidates: RetractionCandidate[] = rows
        .filter((r) => retractionCue(r.content) === null)
        .filter((r) => !premium.has(row.source) || premium.has(r.source))
        .map((r) => ({
          id: r.id,
          content: r.content,
          sourceName: r.sourceName,
          username: r.username,
          assets: r.assets,
          receivedAt: r.receivedAt.getTime(),
        }));
      const link = findRetracted(
        {
          content: row.content,
          sourceName: row.sourceName,
          username: row.username,
          assets: analysis.assets,
          receivedAt: at,
          kind: cue.kind,
        },
        candidates,
        this.deps.windowMs,
      );
      if (link !== null) {
        const linked = await repo.completeRetraction(row.id, analysis, link.id, {
          by: row.id,
          at: row.receivedAt,
          reason: row.content.slice(0, REASON_CHARS),
          kind: cue.kind,
        });
        if (linked !== null) return linked;
      }
    }
    return { done: await repo.complete(row.id, analysis), retracted: null };
  }

  /** Says on the bus that `retraction` retracts `retracted` (once both are stored and published). */
  announce(retracted: SignalRow): void {
    if (retracted.retractedBy === null || retracted.retractedAt === null) return;
    const kind = RetractionKind.safeParse(retracted.retractionKind);
    this.deps.bus
      .publish('signal.retracted', {
        retractedId: String(retracted.id),
        retractionId: String(retracted.retractedBy),
        kind: kind.success ? kind.data : 'denial',
        reason: retracted.retractionReason ?? '',
        receivedAt: retracted.retractedAt.toISOString(),
      })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'signal.retracted not published'));
  }
}
