/**
 * Near-duplicate detection: two items tell the same story when their content words mostly overlap and
 * their key tokens (tickers, cashtags, numbers) agree. Kept in memory for the clustering window.
 */

const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at by for with from as is are was were be been being it its this that ' +
    'these those will would can could has have had just now new says said say report reports reported ' +
    'breaking update alert official officially announces announced announce via per after over into ' +
    'about than then more most very amid today week their our your they we you he she his her us up out'
  ).split(' '),
);

export interface StoryKey {
  words: ReadonlySet<string>;
  keys: ReadonlySet<string>;
  /** The keys split by kind once, since one key is compared with every story in the window. */
  tickers: readonly string[];
  numbers: readonly string[];
  names: readonly string[];
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 3 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  return word;
}

export function storyKey(content: string): StoryKey {
  const text = content.replace(/https?:\/\/\S+/g, ' ');
  const words = new Set<string>();
  const keys = new Set<string>();
  for (const raw of text.split(/[^\p{L}\p{N}$.,%]+/u)) {
    const token = raw.replace(/^[.,$]+|[.,%]+$/g, '');
    if (token === '') continue;
    const lower = token.toLowerCase();
    const word = lower.replace(/,/g, '');
    if (/^\d[\d.,]*(?:[kmbx%]|bn)?$/i.test(token)) keys.add(word.replace(/[^0-9.]+$/, ''));
    else if (!STOPWORDS.has(lower)) {
      // Tickers and cashtags (BTC, $SOL, 1INCH) and capitalised names (Solana, ProtoX) single a story out.
      if (raw.startsWith('$') || (token.length >= 2 && token.length <= 10 && /^[A-Z0-9]+$/.test(token)))
        keys.add(lower);
      else if (/^\p{Lu}\p{Ll}+/u.test(token) && token.length >= 3) keys.add(`@${lower}`);
    }
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    words.add(/^\d/.test(word) ? word.replace(/[^0-9.]+$/, '') : stem(word));
  }
  const all = [...keys];
  return {
    words,
    keys,
    tickers: all.filter((x) => /^[a-z]|^\d+[a-z]/.test(x)),
    numbers: all.filter((x) => /^[0-9.]+$/.test(x)),
    names: all.filter((x) => x.startsWith('@')),
  };
}

function disjoint(a: readonly string[], b: readonly string[]): boolean {
  return a.length > 0 && b.length > 0 && !a.some((x) => b.includes(x));
}

/** Each side names something the other does not ("Ethereum" here, "Solana" there). */
function bothExclusive(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => !b.includes(x)) && b.some((x) => !a.includes(x));
}

/** True when `a` and `b` read as the same story (thresholds checked on hand-made pairs in the tests). */
export function sameStory(a: StoryKey, b: StoryKey): boolean {
  if (a.words.size < 3 || b.words.size < 3) return false;
  // Key tokens must agree: "lists ABC" and "lists XYZ", or "$5M" and "$90M", are different stories.
  if (disjoint(a.tickers, b.tickers) || disjoint(a.numbers, b.numbers) || bothExclusive(a.names, b.names))
    return false;
  let overlap = 0;
  for (const x of a.words) if (b.words.has(x)) overlap += 1;
  const jaccard = overlap / (a.words.size + b.words.size - overlap);
  const containment = overlap / Math.min(a.words.size, b.words.size);
  return jaccard >= 0.55 || (containment >= 0.8 && overlap >= 4);
}

interface Entry<T> {
  /** Its place in the window: later entries have larger numbers. */
  seq: number;
  at: number;
  key: StoryKey;
  fingerprint: string;
  value: T;
}

/**
 * The stories seen in the last `windowMs`: finds an exact duplicate (same fingerprint) or the story an
 * item belongs to. Bounded by `max` entries; the oldest go first.
 *
 * Two stories that name tickers and share none are never one story, so an item naming tickers is
 * compared only with the entries naming one of them and those naming none: at a hundred headlines a
 * second a window holds thousands of entries, and comparing each item with all of them was a quarter
 * of the server's time.
 */
export class StoryWindow<T> {
  private entries: Entry<T>[] = [];
  private readonly byTicker = new Map<string, Entry<T>[]>();
  private readonly untickered: Entry<T>[] = [];
  private readonly byFingerprint = new Map<string, Entry<T>[]>();
  private nextSeq = 0;

  constructor(
    private readonly windowMs: number,
    private readonly max = 5000,
  ) {}

  private prune(now: number): void {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.entries.length && (this.entries[drop]?.at ?? 0) < from) drop += 1;
    if (this.entries.length - drop > this.max) drop = this.entries.length - this.max;
    if (drop === 0) return;
    // Every list holds its entries in window order, so the dropped ones are at their fronts.
    for (const e of this.entries.slice(0, drop)) {
      for (const list of this.listsOf(e.key)) if (list[0] === e) list.shift();
      for (const t of new Set(e.key.tickers)) if (this.byTicker.get(t)?.length === 0) this.byTicker.delete(t);
      const same = this.byFingerprint.get(e.fingerprint);
      if (same?.[0] === e) same.shift();
      if (same?.length === 0) this.byFingerprint.delete(e.fingerprint);
    }
    this.entries = this.entries.slice(drop);
  }

  /** The index lists an entry of `key` is in. */
  private listsOf(key: StoryKey): Entry<T>[][] {
    if (key.tickers.length === 0) return [this.untickered];
    return [...new Set(key.tickers)].map((t) => {
      let list = this.byTicker.get(t);
      if (list === undefined) {
        list = [];
        this.byTicker.set(t, list);
      }
      return list;
    });
  }

  findExact(fingerprint: string, now: number): T | undefined {
    this.prune(now);
    return this.byFingerprint.get(fingerprint)?.[0]?.value;
  }

  /** The newest story `key` belongs to, among those `accept` takes (all by default). */
  findStory(key: StoryKey, now: number, accept: (value: T) => boolean = () => true): T | undefined {
    this.prune(now);
    const matches = (e: Entry<T>) => accept(e.value) && sameStory(key, e.key);
    if (key.tickers.length === 0) {
      for (let i = this.entries.length - 1; i >= 0; i--) {
        const e = this.entries[i];
        if (e !== undefined && matches(e)) return e.value;
      }
      return undefined;
    }
    // Newest first across the lists of its tickers and the untickered list (an entry naming two of
    // its tickers is in two lists: seen once).
    const lists = [this.untickered];
    for (const t of new Set(key.tickers)) {
      const list = this.byTicker.get(t);
      if (list !== undefined) lists.push(list);
    }
    const at = lists.map((l) => l.length - 1);
    let previous = -1;
    for (;;) {
      let pick = -1;
      let seq = -1;
      for (let i = 0; i < lists.length; i++) {
        const e = lists[i]?.[at[i] ?? -1];
        if (e !== undefined && e.seq > seq) {
          seq = e.seq;
          pick = i;
        }
      }
      if (pick < 0) return undefined;
      const e = lists[pick]?.[at[pick] ?? -1];
      at[pick] = (at[pick] ?? 0) - 1;
      if (e === undefined || e.seq === previous) continue;
      previous = e.seq;
      if (matches(e)) return e.value;
    }
  }

  add(at: number, key: StoryKey, fingerprint: string, value: T): void {
    const entry: Entry<T> = { seq: this.nextSeq++, at, key, fingerprint, value };
    this.entries.push(entry);
    for (const list of this.listsOf(key)) list.push(entry);
    const same = this.byFingerprint.get(fingerprint);
    if (same === undefined) this.byFingerprint.set(fingerprint, [entry]);
    else same.push(entry);
    this.prune(at);
  }

  clear(): void {
    this.entries = [];
    this.byTicker.clear();
    this.untickered.length = 0;
    this.byFingerprint.clear();
  }

  get size(): number {
    return this.entries.length;
  }
}
