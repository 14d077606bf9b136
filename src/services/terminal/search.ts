/** Ctrl+R reverse search: what is typed, the history entry it found, and the line before the search. */
export interface SearchState {
  query: string;
  /** The matching history entry, or null before anything matched. */
  index: number | null;
  original: string;
}

/** The latest history entry at or before `from` containing `query` (case-insensitive), or null. */
export function findMatch(history: readonly string[], query: string, from: number): number | null {
  if (query === '') return null;
  const needle = query.toLowerCase();
  for (let i = Math.min(from, history.length - 1); i >= 0; i -= 1) {
    if ((history[i] ?? '').toLowerCase().includes(needle)) return i;
  }
  return null;
}

/** What every candidate starts with (case-insensitive; spelled as the first candidate). */
export function commonPrefix(items: readonly string[]): string {
  const [first = '', ...rest] = items;
  let n = first.length;
  for (const item of rest) {
    let k = 0;
    while (k < n && first[k]?.toLowerCase() === item[k]?.toLowerCase()) k += 1;
    n = k;
  }
  return first.slice(0, n);
}
