/**
 * A card's content as plain text pieces and safe links (no HTML ever: the pane renders each piece as
 * text or as an `<a>` with an http(s) href), cut at 280 characters behind Read More (docs/product.md §9).
 */

export type ContentPart = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

/** docs/product.md §9: content over this many characters is truncated with Read More. */
export const CONTENT_LIMIT = 280;

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation that ends a sentence rather than the link. */
const TRAILING = /[.,;:!?)\]}'"»]+$/;

/** The href for a link, or null when it is not an http(s) address (so `javascript:` never becomes a link). */
export function safeHref(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Text as the app's fonts can draw it. The app ships no font of its own, and the fonts it falls back on
 * (DejaVu, Liberation, Consolas, Menlo) have no circled S, so Binance's "USDⓈ-M" would show a missing
 * glyph box: it is written "USDS-M", as Binance's own API and URLs spell it.
 */
export function readable(text: string): string {
  return text.replaceAll('\u24C8', 'S');
}

/**
 * Splits text into text and link parts; the parts joined give back the text exactly, except that text
 * parts are {@link readable}.
 */
export function contentParts(text: string): ContentPart[] {
  const parts: ContentPart[] = [];
  let last = 0;
  const pushText = (t: string): void => {
    if (t === '') return;
    const prev = parts[parts.length - 1];
    if (prev?.kind === 'text') prev.text += readable(t);
    else parts.push({ kind: 'text', text: readable(t) });
  };
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index;
    const whole = match[0];
    const link = whole.replace(TRAILING, '');
    pushText(text.slice(last, start));
    const href = safeHref(link);
    if (href === null) pushText(link);
    else parts.push({ kind: 'link', text: link, href });
    last = start + link.length;
  }
  pushText(text.slice(last));
  return parts;
}

export interface ShownContent {
  parts: ContentPart[];
  /** True when the text is longer than the limit (the card offers Read More / Show Less). */
  long: boolean;
}

/**
 * What a card shows: the whole text when `expanded` or short, else the first 280 characters (cut at
 * a word boundary when one is near) and an ellipsis.
 */
export function shownContent(text: string, expanded: boolean): ShownContent {
  const long = text.length > CONTENT_LIMIT;
  if (!long || expanded) return { parts: contentParts(text), long };
  let cut = text.slice(0, CONTENT_LIMIT);
  const space = cut.lastIndexOf(' ');
  if (space > CONTENT_LIMIT - 40) cut = cut.slice(0, space);
  return { parts: contentParts(`${cut.trimEnd()}…`), long };
}

/**
 * The address an image or icon is loaded from: a remote http(s) one goes through the server's image
 * proxy (`/api/proxy/image?url=…`), a same-origin path (`/api/news/assets/…`) and a data: icon as they
 * are; anything else is refused (null).
 */
export function mediaSrc(raw: string | null, apiBase = '/api'): string | null {
  if (raw === null || raw === '') return null;
  if (raw.startsWith('data:image/')) return raw;
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw;
  const href = safeHref(raw);
  if (href === null) return null;
  return `${apiBase.replace(/\/+$/, '')}/proxy/image?url=${encodeURIComponent(href)}`;
}

const VIDEO = /\.(mp4|webm|m4v|mov|ogv)(\?|#|$)/i;

/** Whether a media url is a video (by its extension); everything else shows as an image. */
export const isVideo = (url: string): boolean => VIDEO.test(url);
