import { signal, type ReadonlySignal } from '@preact/signals-core';
import { describeArguments, type ArgumentInfo } from '../commands/help';
import type { CommandDefinition, RegistryView } from '../commands/types';
import type { Clock } from './clock';
import { STORAGE_PREFIX, readJson, writeJson, type StoragePort } from './storage';
import type { OutputLine } from './terminal/output';

/** One command as the palette lists it, with the fields of its small form. */
export interface PaletteEntry {
  name: string;
  summary: string;
  usage: string;
  area: string;
  fields: readonly ArgumentInfo[];
}

/** How often and how lately each command ran from anywhere (the palette ranks by it). */
type Usage = Record<string, { count: number; last: number }>;

export const USAGE_KEY = `${STORAGE_PREFIX}palette.usage`;

const isUsage = (v: unknown): v is Usage =>
  typeof v === 'object' &&
  v !== null &&
  Object.values(v).every(
    (u: unknown) =>
      typeof u === 'object' && u !== null && 'count' in u && 'last' in u && typeof u.count === 'number',
  );

/**
 * Fuzzy score of a query against a command: every query letter must appear in order in the name (or
 * failing that, in the summary). Consecutive letters and a match at the start score higher; 0 means no
 * match.
 */
export function fuzzyScore(query: string, entry: Pick<PaletteEntry, 'name' | 'summary'>): number {
  const q = query.trim().toLowerCase();
  if (q === '') return 1;
  const inName = subsequence(q, entry.name.toLowerCase());
  if (inName > 0) return 100 + inName + (entry.name.toLowerCase().startsWith(q) ? 50 : 0);
  return subsequence(q, entry.summary.toLowerCase());
}

function subsequence(query: string, text: string): number {
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of query) {
    if (ch === ' ') continue;
    const found = text.indexOf(ch, at + 1);
    if (found < 0) return 0;
    run = found === at + 1 ? run + 1 : 0;
    score += 1 + run * 2;
    at = found;
  }
  return score;
}

/** `long` with `{ amount: '5k' }` → `long 5k`; values with spaces are quoted; variadic ones are not. */
export function lineFor(entry: PaletteEntry, values: Readonly<Record<string, string>>): string {
  const words = entry.fields.map((field) => {
    const value = (values[field.name] ?? '').trim();
    if (value === '' || field.variadic || !/\s/.test(value)) return value;
    return `"${value.replace(/"/g, '')}"`;
  });
  return [entry.name, ...words].filter((w) => w !== '').join(' ');
}

export interface PaletteModel {
  readonly open: ReadonlySignal<boolean>;
  show(): void;
  hide(): void;
  toggle(): void;
  /** Commands matching the query, best first; with no query, recent and frequent ones first. */
  entries(query: string): PaletteEntry[];
  /** Runs a command with its form's values in the terminal (printing there) and remembers it. */
  run(entry: PaletteEntry, values: Readonly<Record<string, string>>): Promise<OutputLine[]>;
  /** Counts a command run from elsewhere (the terminal), so the palette ranks it. */
  noteUse(name: string): void;
}

export interface PaletteDeps {
  registry: RegistryView;
  /** Runs a line the way a button does: recorded and printed in the terminal. */
  execute(line: string): Promise<OutputLine[]>;
  storage: StoragePort;
  clock: Clock;
}

const toEntry = (c: CommandDefinition): PaletteEntry => ({
  name: c.name,
  summary: c.summary,
  usage: c.usage,
  area: c.area,
  fields: describeArguments(c),
});

export function createPaletteModel({ registry, execute, storage, clock }: PaletteDeps): PaletteModel {
  const open = signal(false, { name: 'palette.open' });
  let usage = readJson(storage, USAGE_KEY, isUsage, {});
  // Recent beats frequent: each use counts 1, and a use in the last day counts 5 more.
  const rank = (name: string): number => {
    const u = usage[name];
    if (u === undefined) return 0;
    return u.count + (clock.now() - u.last < 86_400_000 ? 5 : 0) + u.last / 1e15;
  };
  const noteUse = (name: string): void => {
    const before = usage[name];
    usage = { ...usage, [name]: { count: (before?.count ?? 0) + 1, last: clock.now() } };
    writeJson(storage, USAGE_KEY, usage);
  };
  return {
    open,
    show: () => void (open.value = true),
    hide: () => void (open.value = false),
    toggle: () => void (open.value = !open.peek()),
    entries(query) {
      const all = registry.list().map(toEntry);
      return all
        .map((entry, order) => ({ entry, order, score: fuzzyScore(query, entry), used: rank(entry.name) }))
        .filter((e) => e.score > 0)
        .sort((a, b) => b.score + b.used * 10 - (a.score + a.used * 10) || a.order - b.order)
        .map((e) => e.entry);
    },
    async run(entry, values) {
      open.value = false;
      noteUse(entry.name);
      return execute(lineFor(entry, values));
    },
    noteUse,
  };
}
