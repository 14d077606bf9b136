/** One observation: `y` seen at `x`, counting `w` times (1 unless told). */
export interface Sample {
  x: number;
  y: number;
  w?: number;
}

/** A step of the fitted curve: the weighted mean `x` and fitted `y` of a block of samples, its weight. */
export interface Step {
  x: number;
  y: number;
  w: number;
}

/**
 * Pool-adjacent-violators isotonic regression: the non-decreasing fit of `y` on `x` closest in weighted
 * least squares. Samples of one `x` are pooled first; a block whose mean falls below the one before it
 * merges with it until the means rise. Answers one step per block, in increasing `x` and `y`.
 */
export function isotonic(samples: readonly Sample[]): Step[] {
  const sorted = samples
    .filter((s) => Number.isFinite(s.x) && Number.isFinite(s.y) && (s.w ?? 1) > 0)
    .map((s) => ({ x: s.x, y: s.y, w: s.w ?? 1 }))
    .sort((a, b) => a.x - b.x);
  // Ties are pooled first (one x has one fitted value), then each block, as sums of weight, w·x and
  // w·y, merges with the one below while its mean is the lower.
  const ties: { w: number; wx: number; wy: number; x: number }[] = [];
  for (const s of sorted) {
    const last = ties.at(-1);
    if (last?.x === s.x) {
      last.w += s.w;
      last.wx += s.w * s.x;
      last.wy += s.w * s.y;
    } else ties.push({ x: s.x, w: s.w, wx: s.w * s.x, wy: s.w * s.y });
  }
  const blocks: { w: number; wx: number; wy: number }[] = [];
  const mean = (b: { w: number; wy: number }) => b.wy / b.w;
  for (const { w, wx, wy } of ties) {
    blocks.push({ w, wx, wy });
    for (;;) {
      const top = blocks.at(-1);
      const below = blocks.at(-2);
      if (top === undefined || below === undefined || mean(below) <= mean(top)) break;
      blocks.pop();
      below.w += top.w;
      below.wx += top.wx;
      below.wy += top.wy;
    }
  }
  return blocks.map((b) => ({ x: b.wx / b.w, y: b.wy / b.w, w: b.w }));
}

/**
 * The fitted curve read at `x`: linear between the steps' points, flat beyond the first and last. NaN
 * for no steps.
 */
export function curveAt(points: readonly (readonly [number, number])[], x: number): number {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return Number.NaN;
  if (x <= first[0]) return first[1];
  if (x >= last[0]) return last[1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i] ?? last;
    const [x0, y0] = points[i - 1] ?? first;
    if (x <= x1) return x1 === x0 ? y1 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
  }
  return last[1];
}
