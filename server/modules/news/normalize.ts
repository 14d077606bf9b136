import { createHash } from 'node:crypto';
import type { RawItem, RawQuote } from './news.types';

/**
 * Normalisation of raw items (strip tracking parameters, unescape entities, drop markup, collapse
 * whitespace) and the two keys the pipeline dedupes on: an exact fingerprint and a story's tokens.
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  euro: '€',
  pound: '£',
  yen: '¥',
};

export function unescapeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

const TAG = /<\/?[a-z][a-z0-9]*(?:\s[^<>]{0,500})?\/?>/gi;

function stripMarkup(text: string): string {
  return text
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6])>/gi, ' ')
    .replace(TAG, '');
}

/**
 * Plain text: markup removed (block tags become spaces), entities unescaped, then markup removed again
 * (feeds often escape their HTML twice), whitespace collapsed.
 */
export function normalizeText(text: string): string {
  return (
    stripMarkup(unescapeEntities(stripMarkup(text)))
      .replace(/[\u200b-\u200d\ufeff\ue000]/g, '')
      // A blank line between paragraphs stays one; every other run of white space becomes a space.
      .replace(/[^\S\n]*\n[^\S\n]*\n\s*/g, '\ue000')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/ ?\ue000 ?/g, '\n\n')
  );
}

const TRACKING =
  /^(utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|yclid|_hsenc|_hsmi|ref|ref_src|ref_url|cmpid|s|t|si)$/i;

/** The URL without tracking parameters or fragment; null for anything that is not http(s). */
export function cleanUrl(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(unescapeEntities(raw.trim()));
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  for (const key of [...url.searchParams.keys()]) if (TRACKING.test(key)) url.searchParams.delete(key);
  url.hash = '';
  return url.toString();
}

/** This server's own paths (bundled assets, replay articles) pass as they are; other links are cleaned. */
function cleanLink(raw: string | null): string | null {
  if (raw !== null && /^\/api\/news\/(assets|articles)\/[\w./-]+$/.test(raw) && !raw.includes('..'))
    return raw;
  return cleanUrl(raw);
}

function cleanQuote(quote: RawQuote | null): RawQuote | null {
  if (quote === null) return null;
  const content = normalizeText(quote.content);
  if (content === '') return null;
  return {
    source_name: quote.source_name === null ? null : normalizeText(quote.source_name) || null,
    username: quote.username === null ? null : normalizeText(quote.username) || null,
    icon: cleanLink(quote.icon),
    content,
    media_urls: quote.media_urls.flatMap((u) => cleanLink(u) ?? []),
  };
}

/** The item with every text normalised and every link cleaned; null when no content is left. */
export function normalizeItem(item: RawItem): RawItem | null {
  const content = normalizeText(item.content);
  if (content === '') return null;
  const published = item.published_at === null ? null : new Date(item.published_at);
  return {
    source_name: normalizeText(item.source_name) || 'Unknown',
    username: item.username === null ? null : normalizeText(item.username) || null,
    icon: cleanLink(item.icon),
    url: cleanLink(item.url),
    content,
    media_urls: [...new Set(item.media_urls.flatMap((u) => cleanLink(u) ?? []))],
    quote: cleanQuote(item.quote),
    published_at: published !== null && !Number.isNaN(published.getTime()) ? published.toISOString() : null,
    external_id: item.external_id,
  };
}

/** The exact-duplicate key: the same words in the same order, whatever the case, links or spacing. */
export function fingerprint(content: string): string {
  const key = content
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[^\p{L}\p{N}$%.]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return createHash('sha256').update(key).digest('hex');
}
