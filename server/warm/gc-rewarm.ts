import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { Analyzer } from '../modules/analysis/analysis.service';
import { rehearseTextPaths } from './text-paths';

/** How many bundled items keep the text paths warm after a full collection. */
const WARM_ITEMS = 12;

/**
 * Keeps the text paths compiled while no news comes. V8 drops the compiled code of a regular expression
 * that has not run for a few full collections of the heap, and the next use compiles it again: measured
 * here, the first headline after a quiet spell spent ~7 ms in its analysis instead of ~0.3. After each
 * full collection that no headline's analysis preceded, the paths run once over a few bundled items
 * (~1 ms while they are compiled). `used()` answers a count that grows with every analysis.
 * Returns the disposer.
 */
export function keepTextPathsWarm(analyzer: Pick<Analyzer, 'rehearse'>, used: () => number): () => void {
  let seen = used();
  let queued: ReturnType<typeof setImmediate> | null = null;
  const observer = new PerformanceObserver((list) => {
    const full = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (!full || queued !== null) return;
    const now = used();
    if (now !== seen) {
      seen = now;
      return;
    }
    queued = setImmediate(() => {
      queued = null;
      rehearseTextPaths(analyzer, { items: WARM_ITEMS, passes: 1 });
    });
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (queued !== null) clearImmediate(queued);
  };
}
