/**
 * Edit distance between two words: insertions, deletions, substitutions and swaps of two neighbouring
 * letters each cost 1 (the optimal-string-alignment distance; `hlep` is 1 away from `help`).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] ?? [])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The closest name to a mistyped word, when it is close enough to be a typo: at most 1 edit for words
 * of up to 4 letters, 2 for longer ones. Ties go to the earlier name.
 */
export function closest(word: string, names: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** "Unknown command: 'x'. Did you mean 'y'?", or the pointer to `help` when nothing is close. */
export function unknownCommandText(name: string, names: readonly string[] = []): string {
  const guess = closest(name, names);
  return guess === undefined
    ? `Unknown command: '${name}'. Type "help" to list commands.`
    : `Unknown command: '${name}'. Did you mean '${guess}'?`;
}

/**
 * The hint after "Unknown option '--x'": the long options within 3 edits that share more than 40% of
 * their letters, the nearest only, as `\n(Did you mean --y?)` or `\n(Did you mean one of --y, --z?)`.
 */
export function similarOptionHint(flag: string, longFlags: readonly string[]): string {
  if (!flag.startsWith('--')) return '';
  const typed = flag.slice(2);
  let similar: string[] = [];
  let best = 3;
  for (const candidate of new Set(longFlags.map((f) => f.slice(2)))) {
    if (candidate.length <= 1) continue;
    const distance = editDistance(typed, candidate);
    const length = Math.max(typed.length, candidate.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) {
      best = distance;
      similar = [candidate];
    } else if (distance === best) similar.push(candidate);
  }
  const names = similar.sort((a, b) => a.localeCompare(b)).map((c) => `--${c}`);
  if (names.length > 1) return `\n(Did you mean one of ${names.join(', ')}?)`;
  return names.length === 1 ? `\n(Did you mean ${names[0] ?? ''}?)` : '';
}
