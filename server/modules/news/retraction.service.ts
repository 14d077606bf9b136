import { Dispute, RetractionKind } from '../../../src/contracts/signals';
import type { Bus } from '../../plugins/bus';
import { sameStory, storyKey } from './cluster';
import type { SignalRow } from './news.repo';
import type { NewsLog } from './news.types';
import type { AnalysisColumns, InheritedMark, RetractionRepo } from './retraction.repo';
import {
  findRetracted,
  RETRACTION_WINDOW_MS,
  retractionCue,
  retractsOutright,
  type RetractionCandidate,
} from './retraction';

/** The retraction's text kept on the retracted signal (what its card shows on hover). */
export const REASON_CHARS = 500;
/** Most recent stories a retraction is compared with. */
const MAX_CANDIDATES = 500;

/**
 * What completing an analysed signal stored: the signal, the story it retracted if it is a retraction
 * (the signal itself when it is one more report of a story retracted already), and the story it
 * disputes if it is a retraction from a less trusted source.
 */
export interface Completed {
  done: SignalRow | null;
  retracted: SignalRow | null;
  disputed: SignalRow | null;
}

/**
 * One more report of a retraction: a source whose item clustered into it ("also reported by"). Its
 * `source` kind is known for a report clustered now, and null for one read back from the stored row.
 */
export interface Reporter {
  source: string | null;
  sourceName: string;
  username: string | null;
  receivedAt: Date;
}

/** What a dispute confirmed by a trusted report stored: the retraction, now linked, and what it retracts. */
export interface Confirmed {
  /** The retraction with its link to the story (null when it had one already). */
  retraction: SignalRow | null;
  retracted: SignalRow[];
}

const NONE_CONFIRMED: Confirmed = { retraction: null, retracted: [] };

/** The first line of a story, as a question about it names it. */
const HEADLINE_CHARS = 200;
const headlineOf = (content: string) => (content.split('\n')[0]?.trim() ?? '').slice(0, HEADLINE_CHARS);

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
      repo: RetractionRepo;
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

  /**
   * Stores the analysis of `row`; for a retraction, also the link to its story when one is found: a
   * retraction when its source may take the story back ({@link retractsOutright}), else a dispute. A
   * new report of a story retracted or disputed lately is stored with that story's mark, so that it is
   * never traded as fresh news.
   */
  async complete(row: SignalRow, analysis: AnalysisColumns): Promise<Completed> {
    const { repo } = this.deps;
    const cue = retractionCue(row.content);
    if (cue === null) {
      const inherited = await this.inherited(row, analysis);
      const done = await repo.complete(row.id, { ...analysis, ...inherited });
      return { done, retracted: done?.retractedBy == null ? null : done, disputed: null };
    }
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
    const story = link === null ? undefined : rows.find((r) => r.id === link.id);
    if (story !== undefined && retractsOutright(row, story)) {
      const linked = await repo.completeRetraction(row.id, analysis, story.id, {
        by: row.id,
        at: row.receivedAt,
        reason: row.content.slice(0, REASON_CHARS),
        kind: cue.kind,
      });
      if (linked !== null) return { ...linked, disputed: null };
    } else if (story !== undefined) {
      const linked = await repo.completeDispute(row.id, analysis, story.id, {
        signal_id: String(row.id),
        received_at: row.receivedAt.toISOString(),
        reason: row.content.slice(0, REASON_CHARS),
        kind: cue.kind,
        source_name: row.sourceName,
      });
      if (linked !== null) {
        // A trusted source may have reported this retraction while it was analysed: its report then
        // retracts the story at once (a report clustered later confirms it in `confirmDisputes`).
        const confirmed = await this.confirmDisputes(linked.done, reportersOf(linked.done));
        const retracted = confirmed.retracted.find((r) => r.id === story.id);
        if (retracted !== undefined)
          return { done: confirmed.retraction ?? linked.done, retracted, disputed: null };
        return { done: linked.done, retracted: null, disputed: linked.disputed };
      }
    }
    return { done: await repo.complete(row.id, analysis), retracted: null, disputed: null };
  }

  /**
   * The mark a new report inherits: that of the newest story of the last day, naming one of its assets,
   * that was retracted or disputed and that it tells again (the test that clusters reports of a story).
   */
  private async inherited(row: SignalRow, analysis: AnalysisColumns): Promise<InheritedMark> {
    if (analysis.assets.length === 0) return {};
    const marked = await this.deps.repo.markedStories({
      before: row.id,
      since: new Date(row.receivedAt.getTime() - (this.deps.windowMs ?? RETRACTION_WINDOW_MS)),
      assets: analysis.assets,
    });
    if (marked.length === 0) return {};
    const key = storyKey(row.content);
    const premium = this.deps.premiumSources ?? new Set<string>();
    // A public report never carries the words of a mark only Premium accounts may read.
    const story = marked.find(
      (m) =>
        (premium.has(row.source) || !premium.has(m.source)) &&
        retractionCue(m.content) === null &&
        sameStory(key, storyKey(m.content)),
    );
    if (story === undefined) return {};
    if (story.retractedBy !== null) {
      return {
        retractedBy: story.retractedBy,
        retractedAt: story.retractedAt,
        retractionReason: story.retractionReason,
        retractionKind: story.retractionKind,
      };
    }
    return story.dispute === null ? {} : { dispute: story.dispute };
  }

  /**
   * A retraction that only disputed its story, reported again by a source that may take the story back
   * ({@link retractsOutright}: the same source, the account the story came from or names, or one as
   * trusted): every story it disputes that such a reporter may retract is retracted now, by it, with its
   * words, as if it had come from that source first. A report from a Premium-only source retracts only
   * stories of such sources, as a retraction from one does; a reporter whose source is not known (read
   * back from the row) retracts a public story only where no source is Premium-only. Nothing when it
   * disputes nothing (yet: its analysis, when it completes, looks at its reporters itself).
   */
  async confirmDisputes(retraction: SignalRow, reporters: readonly Reporter[]): Promise<Confirmed> {
    const cue = retractionCue(retraction.content);
    if (cue === null || reporters.length === 0) return NONE_CONFIRMED;
    const disputed = await this.deps.repo.disputedBy(
      retraction.id,
      new Date(retraction.receivedAt.getTime() - (this.deps.windowMs ?? RETRACTION_WINDOW_MS)),
    );
    if (disputed.length === 0) return NONE_CONFIRMED;
    const premium = this.deps.premiumSources ?? new Set<string>();
    const mayReach = (r: Reporter, story: SignalRow) =>
      premium.has(story.source) || (r.source === null ? premium.size === 0 : !premium.has(r.source));
    const marks = disputed.flatMap((story) => {
      const by = reporters.find(
        (r) =>
          mayReach(r, story) &&
          retractsOutright(
            { sourceName: r.sourceName, username: r.username, content: retraction.content },
            story,
          ),
      );
      if (by === undefined) return [];
      return [
        {
          id: story.id,
          mark: {
            by: retraction.id,
            at: by.receivedAt,
            reason: retraction.content.slice(0, REASON_CHARS),
            kind: cue.kind,
          },
        },
      ];
    });
    if (marks.length === 0) return NONE_CONFIRMED;
    return this.deps.repo.retractDisputed(retraction.id, marks);
  }

  /** Says on the bus that a less trusted source disputes `disputed` (once both are stored and published). */
  announceDispute(disputed: SignalRow): void {
    const dispute = Dispute.safeParse(disputed.dispute);
    if (!dispute.success) return;
    this.deps.bus
      .publish('signal.disputed', {
        disputedId: String(disputed.id),
        disputeId: dispute.data.signal_id,
        kind: dispute.data.kind,
        reason: dispute.data.reason,
        sourceName: dispute.data.source_name,
        storySourceName: disputed.sourceName,
        headline: headlineOf(disputed.content),
        receivedAt: dispute.data.received_at,
      })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'signal.disputed not published'));
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

/** The sources a stored retraction was also reported by (their kinds are not stored). */
function reportersOf(row: SignalRow): Reporter[] {
  return row.alsoReportedBy.flatMap((r) => {
    const at = Date.parse(r.received_at);
    return Number.isFinite(at)
      ? [{ source: null, sourceName: r.source_name, username: r.username, receivedAt: new Date(at) }]
      : [];
  });
}
