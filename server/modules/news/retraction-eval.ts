/**
 * Figures of the retraction recognizer and linker on a labelled set (`data/retractions.*.jsonl`): each
 * case is a few earlier stories and one later item, labelled with the story it retracts (or none). The
 * assets come from the analyzer, as in the pipeline. `npm run eval:retractions` prints the figures of
 * the tuning set; `-- --holdout` adds the held-out set (read it only to report, never to tune);
 * `-- --verbose` lists every miss.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { fromRoot } from '../../paths';
import { createAnalyzer, type Analyzer } from '../analysis/analysis.service';
import { findRetracted, retractionCue, type RetractionCandidate } from './retraction';

const Post = z.object({ content: z.string(), source_name: z.string(), username: z.string().nullable() });
export const RetractionCase = z.object({
  id: z.string(),
  stories: z.array(Post.extend({ minutes_ago: z.number() })).min(1),
  item: Post,
  /** Index in `stories` of the story the item retracts; null when it retracts none. */
  retracts: z.number().int().nullable(),
  note: z.string().optional(),
});
export type RetractionCase = z.infer<typeof RetractionCase>;

export type RetractionSet = 'tune' | 'holdout';

export function loadRetractionCases(set: RetractionSet): RetractionCase[] {
  const text = readFileSync(fromRoot(`server/modules/news/data/retractions.${set}.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => RetractionCase.parse(JSON.parse(line)));
}

export interface RetractionFigures {
  cases: number;
  /** Links found that are the labelled ones / links found. */
  precision: number;
  /** Labelled links found / labelled links. */
  recall: number;
  /** The text alone: items read as retractions that are labelled so / read so. */
  cuePrecision: number;
  cueRecall: number;
  misses: { id: string; expected: number | null; got: number | null; cue: string | null }[];
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

/** Runs every case through the analyzer, the cue and the linker, as the pipeline does. */
export async function evaluateRetractions(
  cases: readonly RetractionCase[],
  analyzer: Analyzer,
): Promise<RetractionFigures> {
  const now = Date.parse('2026-01-09T21:00:00Z');
  let found = 0;
  let right = 0;
  let labelled = 0;
  let cueSaid = 0;
  let cueRight = 0;
  const misses: RetractionFigures['misses'] = [];
  for (const c of cases) {
    const assetsOf = async (p: z.infer<typeof Post>) =>
      (
        await analyzer.analyze({
          content: p.content,
          source_name: p.source_name,
          ...(p.username === null ? {} : { username: p.username }),
        })
      ).assets;
    const candidates: RetractionCandidate[] = [];
    for (const [i, s] of c.stories.entries()) {
      candidates.push({
        id: i,
        content: s.content,
        sourceName: s.source_name,
        username: s.username,
        assets: await assetsOf(s),
        receivedAt: now - s.minutes_ago * 60_000,
      });
    }
    const cue = retractionCue(c.item.content);
    const link =
      cue === null
        ? null
        : findRetracted(
            {
              content: c.item.content,
              sourceName: c.item.source_name,
              username: c.item.username,
              assets: await assetsOf(c.item),
              receivedAt: now,
              kind: cue.kind,
            },
            candidates,
          );
    const got = link?.id ?? null;
    if (c.retracts !== null) labelled += 1;
    if (got !== null) found += 1;
    if (got !== null && got === c.retracts) right += 1;
    if (cue !== null) cueSaid += 1;
    if (cue !== null && c.retracts !== null) cueRight += 1;
    if (got !== c.retracts) misses.push({ id: c.id, expected: c.retracts, got, cue: cue?.phrase ?? null });
  }
  return {
    cases: cases.length,
    precision: ratio(right, found),
    recall: ratio(right, labelled),
    cuePrecision: ratio(cueRight, cueSaid),
    cueRecall: ratio(cueRight, labelled),
    misses,
  };
}

async function main(): Promise<void> {
  const analyzer = createAnalyzer({
    ANALYZER: 'local',
    LLM_BASE_URL: undefined,
    LLM_API_KEY: undefined,
    LLM_MODEL: undefined,
  });
  const verbose = process.argv.includes('--verbose');
  const sets: RetractionSet[] = process.argv.includes('--holdout') ? ['tune', 'holdout'] : ['tune'];
  for (const set of sets) {
    const f = await evaluateRetractions(loadRetractionCases(set), analyzer);
    const { misses, ...figures } = f;
    console.log(JSON.stringify({ set, ...figures, misses: misses.length }));
    if (verbose) for (const m of misses) console.log('  ', JSON.stringify(m));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
