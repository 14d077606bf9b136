/**
 * Gradient-boosted regression trees (weighted squared error), small enough to ship as JSON and to read in a few
 * microseconds: each tree is four parallel arrays, a node `i` splitting on `feature[i] <= threshold[i]`
 * to `left[i]`, else `right[i]`; a leaf has `feature[i] === -1` and its value in `value[i]`. Training is
 * deterministic: a fixed seed draws each tree's rows, and ties between equally good splits go to the
 * lower feature index and the lower threshold.
 */
export interface Tree {
  feature: number[];
  threshold: number[];
  left: number[];
  right: number[];
  value: number[];
}

export interface BoostOptions {
  trees: number;
  depth: number;
  learningRate: number;
  /** Fewest training rows a leaf may hold. */
  minLeaf: number;
  /** Share of the rows each tree is fitted on (drawn without replacement). */
  subsample: number;
  seed: number;
}

export interface Ensemble {
  version: 1;
  /** The name of each input column, in order: a model trained on other features refuses to load. */
  features: readonly string[];
  base: number;
  /**
   * A column every prediction starts from (the trees then learn its error), or absent to start from
   * `base` alone.
   */
  offset?: number;
  learningRate: number;
  training: BoostOptions & { examples: number };
  trees: Tree[];
}

export function predict(model: Ensemble, x: ArrayLike<number>): number {
  let sum = model.base + (model.offset === undefined ? 0 : (x[model.offset] ?? 0));
  for (const t of model.trees) {
    let i = 0;
    let f = t.feature[0] ?? -1;
    while (f >= 0) {
      i = (x[f] ?? 0) <= (t.threshold[i] ?? 0) ? (t.left[i] ?? 0) : (t.right[i] ?? 0);
      f = t.feature[i] ?? -1;
    }
    sum += model.learningRate * (t.value[i] ?? 0);
  }
  return sum;
}

/** mulberry32: a small seeded generator, so the same data and seed give the same trees. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Split {
  feature: number;
  threshold: number;
  gain: number;
}

/** The best split of `rows` (already in each feature's sorted order through `order`). */
function bestSplit(
  X: readonly Float64Array[],
  residual: Float64Array,
  weight: Float64Array,
  order: readonly Int32Array[],
  inNode: Uint8Array,
  count: number,
  total: number,
  totalWeight: number,
  minLeaf: number,
): Split | undefined {
  let best: Split | undefined;
  const parent = (total * total) / totalWeight;
  for (let f = 0; f < order.length; f++) {
    const sorted = order[f] ?? new Int32Array();
    let leftN = 0;
    let leftW = 0;
    let leftSum = 0;
    let prev = Number.NaN;
    for (let k = 0; k < sorted.length; k++) {
      const r = sorted[k] ?? 0;
      if (inNode[r] === 0) continue;
      const v = X[r]?.[f] ?? 0;
      if (leftN >= minLeaf && count - leftN >= minLeaf && v !== prev) {
        const rightSum = total - leftSum;
        const gain = (leftSum * leftSum) / leftW + (rightSum * rightSum) / (totalWeight - leftW) - parent;
        if (gain > 1e-9 && (best === undefined || gain > best.gain + 1e-12))
          best = { feature: f, threshold: (prev + v) / 2, gain };
      }
      leftN += 1;
      leftW += weight[r] ?? 1;
      leftSum += (weight[r] ?? 1) * (residual[r] ?? 0);
      prev = v;
    }
  }
  return best;
}

function growTree(
  X: readonly Float64Array[],
  residual: Float64Array,
  weight: Float64Array,
  order: readonly Int32Array[],
  rows: readonly number[],
  opts: BoostOptions,
): Tree {
  const tree: Tree = { feature: [], threshold: [], left: [], right: [], value: [] };
  const inNode = new Uint8Array(X.length);
  const grow = (nodeRows: readonly number[], depth: number): number => {
    const id = tree.feature.length;
    const total = nodeRows.reduce((s, r) => s + (weight[r] ?? 1) * (residual[r] ?? 0), 0);
    const totalWeight = nodeRows.reduce((s, r) => s + (weight[r] ?? 1), 0);
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(total / totalWeight);
    if (depth >= opts.depth || nodeRows.length < 2 * opts.minLeaf) return id;
    inNode.fill(0);
    for (const r of nodeRows) inNode[r] = 1;
    const split = bestSplit(
      X,
      residual,
      weight,
      order,
      inNode,
      nodeRows.length,
      total,
      totalWeight,
      opts.minLeaf,
    );
    if (split === undefined) return id;
    const goLeft = nodeRows.filter((r) => (X[r]?.[split.feature] ?? 0) <= split.threshold);
    const goRight = nodeRows.filter((r) => (X[r]?.[split.feature] ?? 0) > split.threshold);
    tree.feature[id] = split.feature;
    tree.threshold[id] = split.threshold;
    tree.value[id] = 0;
    tree.left[id] = grow(goLeft, depth + 1);
    tree.right[id] = grow(goRight, depth + 1);
    return id;
  };
  grow(rows, 0);
  return tree;
}

/** Fits an ensemble to rows `X` (one Float64Array per row, columns named by `features`) and targets `y`. */
export function fitEnsemble(
  X: readonly Float64Array[],
  y: readonly number[],
  features: readonly string[],
  opts: BoostOptions,
  { offset, weights }: { offset?: number; weights?: readonly number[] } = {},
): Ensemble {
  const n = X.length;
  if (n === 0 || n !== y.length) throw new Error('fitEnsemble needs one target per row');
  const start = (i: number) => (offset === undefined ? 0 : (X[i]?.[offset] ?? 0));
  const weight = Float64Array.from({ length: n }, (_, i) => weights?.[i] ?? 1);
  const sumWeight = weight.reduce((s, w) => s + w, 0);
  const base = y.reduce((s, v, i) => s + (weight[i] ?? 1) * (v - start(i)), 0) / sumWeight;
  const fitted = Float64Array.from({ length: n }, (_, i) => base + start(i));
  const residual = new Float64Array(n);
  const order = features.map((_, f) => {
    const idx = Int32Array.from({ length: n }, (_, i) => i);
    return idx.sort((a, b) => (X[a]?.[f] ?? 0) - (X[b]?.[f] ?? 0) || a - b);
  });
  const random = generator(opts.seed);
  const trees: Tree[] = [];
  const take = Math.max(2 * opts.minLeaf, Math.round(n * opts.subsample));
  for (let t = 0; t < opts.trees; t++) {
    for (let i = 0; i < n; i++) residual[i] = (y[i] ?? 0) - (fitted[i] ?? 0);
    // A partial Fisher-Yates shuffle picks this tree's rows.
    const pool = Array.from({ length: n }, (_, i) => i);
    for (let i = 0; i < take && i < n - 1; i++) {
      const j = i + Math.floor(random() * (n - i));
      [pool[i], pool[j]] = [pool[j] ?? 0, pool[i] ?? 0];
    }
    const rows = pool.slice(0, Math.min(take, n)).sort((a, b) => a - b);
    const tree = growTree(X, residual, weight, order, rows, opts);
    trees.push(tree);
    const model: Ensemble = {
      version: 1,
      features,
      base: 0,
      learningRate: opts.learningRate,
      training: { ...opts, examples: n },
      trees: [tree],
    };
    for (let i = 0; i < n; i++) fitted[i] = (fitted[i] ?? 0) + predict(model, X[i] ?? []);
  }
  return {
    version: 1,
    features,
    base,
    ...(offset === undefined ? {} : { offset }),
    learningRate: opts.learningRate,
    training: { ...opts, examples: n },
    trees,
  };
}
