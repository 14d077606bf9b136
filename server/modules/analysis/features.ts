import type { EventMatch } from './events';
import { isNumberToken, type NormalizedText } from './normalize';

/**
 * Hashed features for the linear sentiment model: words, word pairs, a negation scope, number shapes
 * and the rule features (event type, direction, hedge, denial). Hashing keeps the model a fixed-size
 * vector with no vocabulary file; collisions at 2^18 buckets are rare for a few thousand features.
 */
export const FEATURE_BITS = 18;
export const FEATURE_DIM = 1 << FEATURE_BITS;

/** FNV-1a, 32-bit. */
export function hashFeature(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & (FEATURE_DIM - 1);
}

const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'without',
  'nope',
  'nah',
  "isn't",
  "won't",
  "didn't",
  "don't",
  "doesn't",
]);
const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'to',
  'in',
  'on',
  'for',
  'and',
  'at',
  'by',
  'with',
  'is',
  'its',
]);

function shape(raw: string): string {
  if (raw.endsWith('%'))
    return raw.startsWith('-') ? '<pct_down>' : raw.startsWith('+') ? '<pct_up>' : '<pct>';
  if (raw.includes('$')) return '<usd>';
  return '<num>';
}

/** The feature names of one item (exported for tests and for inspecting the model). */
export function featureNames(text: NormalizedText, event: EventMatch): string[] {
  const out: string[] = [];
  const words: string[] = [];
  let negate = 0;
  for (const t of text.tokens) {
    if (t.raw === '(' || t.raw === ')' || t.raw === '/') continue;
    let w = isNumberToken(t) ? shape(t.raw) : t.tagged ? '<cashtag>' : t.lower;
    if (negate > 0 && !NEGATORS.has(w)) {
      w = `not_${w}`;
      negate -= 1;
    }
    if (NEGATORS.has(t.lower)) negate = 3;
    words.push(w);
    if (!STOP.has(w)) out.push(`w:${w}`);
  }
  for (let i = 1; i < words.length; i++) out.push(`b:${words[i - 1]}_${words[i]}`);
  out.push(`ev:${event.type}`, `dir:${event.dir}`, `evdir:${event.type}:${event.dir}`);
  if (event.confident) out.push(`conf:${event.dir}`);
  if (event.hedged) out.push('hedged', `hedged:${event.dir}`);
  if (event.denied) out.push('denied');
  if (event.delayed) out.push('delayed');
  if (text.shouting) out.push('shouting');
  out.push('bias');
  return out;
}

/** Feature indices, deduplicated. */
export function featurize(text: NormalizedText, event: EventMatch): number[] {
  return [...new Set(featureNames(text, event).map(hashFeature))];
}
