import { z } from 'zod';

/**
 * Keyword filters: the feed's (saved per user) and a rule's conditions. Include words or phrases (when
 * any are given, at least one must appear) and exclude words or phrases (none may appear), compared
 * case- and accent-insensitively as whole words over an item's text, its quoted text and its source's
 * name. "list" does not match "listing"; a trailing `*` makes a prefix ("list*" matches both). A phrase
 * matches its words in order with only spaces or punctuation between them ("spot etf" matches "Spot-ETF").
 * A cashtag term (`$SOL`) matches only the cashtag; a plain term (`sol`) matches `SOL` and `$SOL`.
 */
export const KEYWORD_LIMITS = { terms: 20, chars: 60 } as const;

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case, accents dropped, compatibility forms folded (full-width letters, ligatures). */
const fold = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

interface Token {
  word: string;
  cashtag: boolean;
}

function tokens(text: string): Token[] {
  const folded = fold(text);
  const out: Token[] = [];
  for (const m of folded.matchAll(WORD)) out.push({ word: m[0], cashtag: folded[m.index - 1] === '$' });
  return out;
}

const hasWord = (term: string) => /[\p{L}\p{N}]/u.test(term);

/** One term as typed: trimmed, inner spaces collapsed, at most 60 characters, with a letter or digit. */
const Term = (list: 'include' | 'exclude') =>
  z
    .string({ error: `Each ${list} word must be text.` })
    .transform((t) => t.trim().replace(/\s+/g, ' '))
    .refine((t) => t.length >= 1 && t.length <= KEYWORD_LIMITS.chars, {
      error: `Each ${list} word or phrase must be 1 to ${KEYWORD_LIMITS.chars} characters.`,
      abort: true,
    })
    .refine(hasWord, { error: `Each ${list} word or phrase must contain a letter or a digit.` });

/** One list of terms (`include` or `exclude`), validated and with repeats dropped. */
export const TermList = (list: 'include' | 'exclude') =>
  z
    .array(Term(list), { error: `${list[0]?.toUpperCase()}${list.slice(1)} must be a list of words.` })
    .max(KEYWORD_LIMITS.terms, {
      error: `${list[0]?.toUpperCase()}${list.slice(1)} may hold at most ${KEYWORD_LIMITS.terms} words or phrases.`,
    })
    // The same term twice (in any case) is kept once.
    .transform((terms) => {
      const seen = new Set<string>();
      return terms.filter((t) => {
        const k = fold(t);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    });

export const KeywordFilter = z.object({
  include: z.preprocess((v) => v ?? [], TermList('include')),
  exclude: z.preprocess((v) => v ?? [], TermList('exclude')),
});
export type KeywordFilter = z.infer<typeof KeywordFilter>;

/**
 * `GET/PUT /api/users/me/feed-filter`: what the feed leaves out for this account (the list, the live
 * stream and the browser's store). No filter saved answers two empty lists; saving two empty lists clears it.
 */
export const FeedFilter = z.object({ include: z.array(z.string()), exclude: z.array(z.string()) });
export type FeedFilter = z.infer<typeof FeedFilter>;

export const NO_KEYWORDS: KeywordFilter = { include: [], exclude: [] };

export const isEmptyFilter = (f: KeywordFilter): boolean => f.include.length === 0 && f.exclude.length === 0;

/** "listing, hack" (a command's or a form's field) into its terms; empty pieces are dropped. */
export function splitTerms(raw: string): string[] {
  return raw
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

interface CompiledTerm {
  parts: Token[];
  prefix: boolean;
}

function compileTerm(term: string): CompiledTerm {
  const trimmed = term.trim();
  const prefix = trimmed.endsWith('*');
  return { parts: tokens(prefix ? trimmed.slice(0, -1) : trimmed), prefix };
}

function occursIn(term: CompiledTerm, text: readonly Token[]): boolean {
  const n = term.parts.length;
  if (n === 0) return false;
  for (let i = 0; i + n <= text.length; i++) {
    let all = true;
    for (let j = 0; j < n && all; j++) {
      const want = term.parts[j];
      const got = text[i + j];
      if (want === undefined || got === undefined) all = false;
      else if (want.cashtag && !got.cashtag) all = false;
      else if (term.prefix && j === n - 1) all = got.word.startsWith(want.word);
      else all = got.word === want.word;
    }
    if (all) return true;
  }
  return false;
}

/** The filter as a test of a text, compiled once (a rule's is used on every headline). */
export function compileKeywords(filter: KeywordFilter): (texts: string | readonly string[]) => boolean {
  if (isEmptyFilter(filter)) return () => true;
  const include = filter.include.map(compileTerm);
  const exclude = filter.exclude.map(compileTerm);
  return (texts) => {
    // Each part on its own: a phrase never runs from the end of one into the start of the next.
    const parts = (typeof texts === 'string' ? [texts] : texts).map(tokens);
    const found = (t: CompiledTerm) => parts.some((words) => occursIn(t, words));
    if (include.length > 0 && !include.some(found)) return false;
    return !exclude.some(found);
  };
}

export const matchesKeywords = (filter: KeywordFilter, texts: string | readonly string[]): boolean =>
  compileKeywords(filter)(texts);

/** What of a signal the filters read: its text, its quoted text and its source's name. */
export interface KeywordSubject {
  content: string;
  metadata: { source_name: string };
  quote_data: { content: string; source_name: string | null } | null;
}

export function keywordTexts(item: KeywordSubject): string[] {
  const parts = [item.content, item.metadata.source_name];
  if (item.quote_data !== null) parts.push(item.quote_data.content, item.quote_data.source_name ?? '');
  return parts;
}

/** Whether a signal passes the filter (a compiled one, or the filter itself). */
export function signalPasses(
  filter: KeywordFilter | ((texts: readonly string[]) => boolean),
  item: KeywordSubject,
): boolean {
  return typeof filter === 'function'
    ? filter(keywordTexts(item))
    : matchesKeywords(filter, keywordTexts(item));
}
