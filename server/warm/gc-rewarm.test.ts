import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { keepTextPathsWarm } from './gc-rewarm';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** A full collection, then the observer's report and the run it queues. */
async function fullCollection(): Promise<void> {
  collect();
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('the text paths kept warm', () => {
  it('runs them after a full collection that no headline preceded, and only then', async () => {
    const runs: number[] = [];
    let used = 0;
    const stop = keepTextPathsWarm({ rehearse: (inputs) => void runs.push(inputs.length) }, () => used);
    try {
      await fullCollection();
      expect(runs).toHaveLength(1);
      // Fewer items than at start: a few, every kind of event.
      expect(runs[0]).toBeGreaterThan(5);
      expect(runs[0]).toBeLessThan(20);

      used += 1; // a headline was analysed since
      await fullCollection();
      expect(runs).toHaveLength(1);

      await fullCollection();
      expect(runs).toHaveLength(2);
    } finally {
      stop();
    }
    await fullCollection();
    expect(runs).toHaveLength(2);
  });
});

describe('what keeping the text paths warm relies on', () => {
  it("Node still reports a full collection to a 'gc' observer, its kind in the entry's detail", async () => {
    // The observer tells a full collection from a minor one by `detail.kind`: were the entry to lose
    // it, the text paths would never run again and quiet spells would cost their recompilation again.
    const reported = new Promise<PerformanceEntry[]>((resolve) => {
      const observer = new PerformanceObserver((list) => {
        observer.disconnect();
        resolve(list.getEntries());
      });
      observer.observe({ entryTypes: ['gc'] });
    });
    collect();
    // Whatever collections ran since the observer began are reported together, the full one among them.
    const kinds = (await reported).map((e) => (e as { detail?: { kind?: number } }).detail?.kind);
    expect(kinds).toContain(constants.NODE_PERFORMANCE_GC_MAJOR);
  });
});
