import type { Analyzer } from '../analysis/analysis.service';
import { storyKey } from './cluster';
import { fingerprint } from './normalize';
import { retractionCue } from './retraction';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent } from './sources/replay-data';

/** How many of the bundled items are rehearsed (spread over the whole set, every kind of event). */
const ITEMS = 60;
/** V8 runs a regular expression's bytecode first and compiles it to machine code on a later use. */
const PASSES = 2;

/**
 * Runs what admission and analysis do to a headline's text (its fingerprint, its story key, the
 * retraction cues, the local analysis) over bundled replay items, and drops the results: nothing is
 * stored, published or sent. Done at start: V8 compiles a pattern when it first runs it and optimises
 * code once it has run, and without this the first headline after a start paid for both, ~25 ms in
 * front of its card and its orders. Returns how long it took, in ms.
 */
export function rehearseTextPaths(analyzer: Pick<Analyzer, 'rehearse'>): number {
  const started = performance.now();
  const step = Math.max(1, Math.floor(REPLAY_ITEMS.length / ITEMS));
  const inputs = REPLAY_ITEMS.filter((_, i) => i % step === 0).map((e) => ({
    content: replayContent(e),
    source_name: REPLAY_AUTHORS[e.author].source_name,
    username: REPLAY_AUTHORS[e.author].username,
  }));
  for (let pass = 0; pass < PASSES; pass++) {
    for (const { content } of inputs) {
      fingerprint(content);
      storyKey(content);
      retractionCue(content);
    }
    analyzer.rehearse(inputs);
  }
  return performance.now() - started;
}
