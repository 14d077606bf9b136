import { z } from 'zod';
import type { AnalysisInput } from '../../src/contracts/analysis';
import { IngestResponse, ingestForm } from '../../src/contracts/signals';
import type { Analyzer } from '../modules/analysis/analysis.service';
import { storyKey } from '../modules/news/cluster';
import { fingerprint } from '../modules/news/normalize';
import { retractionCue } from '../modules/news/retraction';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent } from '../modules/news/sources/replay-data';

/** A bundled item as a source hands it in: what the analysis reads and the webhook's body carries. */
type RehearsalInput = Pick<AnalysisInput, 'content' | 'source_name' | 'username'>;

/** How many of the bundled items are rehearsed (spread over the whole set, every kind of event). */
const ITEMS = 60;
/** V8 runs a regular expression's bytecode first and compiles it to machine code on a later use. */
const PASSES = 2;

/**
 * Runs what the webhook and then admission and analysis do to a headline's text (the body's validation
 * in each of its forms and the answer's encoding, the fingerprint, the story key, the retraction cues,
 * the local analysis) over bundled replay items, and drops the results: nothing is stored, published
 * or sent. Done at start: V8 compiles a pattern when it first runs it and optimises code once it has
 * run, and without this the first headline after a start paid for both, ~25 ms in front of its card
 * and its orders; the schema library writes an object's parser as code on its first parse, ~2 ms more
 * for the webhook's body alone. Returns how long it took, in ms.
 */
export function rehearseTextPaths(
  analyzer: Pick<Analyzer, 'rehearse'>,
  { items = ITEMS, passes = PASSES }: { items?: number; passes?: number } = {},
): number {
  const started = performance.now();
  const step = Math.max(1, Math.floor(REPLAY_ITEMS.length / items));
  const inputs: RehearsalInput[] = REPLAY_ITEMS.filter((_, i) => i % step === 0).map((e) => ({
    content: replayContent(e),
    source_name: REPLAY_AUTHORS[e.author].source_name,
    username: REPLAY_AUTHORS[e.author].username,
  }));
  for (let pass = 0; pass < passes; pass++) {
    rehearseWebhook(inputs);
    for (const { content } of inputs) {
      fingerprint(content);
      storyKey(content);
      retractionCue(content);
    }
    analyzer.rehearse(inputs);
  }
  return performance.now() - started;
}

/**
 * The webhook's bodies as callers send them, built from `inputs`: one item, a bare array and `{items}`,
 * with and without the optional fields, the publication time in both its forms. Each is valid.
 */
export function webhookBodies(inputs: readonly RehearsalInput[]): unknown[] {
  const items = inputs.map((input, i) => ({
    ...input,
    url: `https://rehearsal.invalid/${i}`,
    external_id: `rehearsal-${i}`,
    ...(i % 2 === 0
      ? { published_at: new Date(0).toISOString(), icon: 'https://rehearsal.invalid/icon.png' }
      : { published_at: 1_700_000_000_000, media_urls: ['https://rehearsal.invalid/a.png'] }),
    ...(i % 3 === 0 ? { quote: { content: input.content, source_name: input.source_name } } : {}),
  }));
  return [...items, items.slice(0, 3), { items: items.slice(0, 3) }];
}

/** The webhook's bodies validated, and its answer encoded, as the route does. */
function rehearseWebhook(inputs: readonly RehearsalInput[]): void {
  for (const body of webhookBodies(inputs)) ingestForm(body).safeParse(body);
  z.safeEncode(IngestResponse, { accepted: 1, results: [{ result: 'created', id: '1' }] });
}
