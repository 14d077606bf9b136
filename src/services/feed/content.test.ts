import { describe, expect, it } from 'vitest';
import { CONTENT_LIMIT, contentParts, isVideo, mediaSrc, readable, safeHref, shownContent } from './content';

const join = (parts: ReturnType<typeof contentParts>) => parts.map((p) => p.text).join('');

describe('card content as text and safe links', () => {
  it('turns http(s) addresses into links and leaves the rest as text, losing nothing', () => {
    const text = 'SEC filing: https://sec.gov/x?a=1&b=2. More at http://ex.com/p)';
    const parts = contentParts(text);
    expect(parts).toEqual([
      { kind: 'text', text: 'SEC filing: ' },
      { kind: 'link', text: 'https://sec.gov/x?a=1&b=2', href: 'https://sec.gov/x?a=1&b=2' },
      { kind: 'text', text: '. More at ' },
      { kind: 'link', text: 'http://ex.com/p', href: 'http://ex.com/p' },
      { kind: 'text', text: ')' },
    ]);
    expect(join(parts)).toBe(text);
  });

  it('keeps markup and script addresses as plain text', () => {
    const text = '<img src=x onerror=alert(1)> javascript:alert(1) data:text/html,hi';
    expect(contentParts(text)).toEqual([{ kind: 'text', text }]);
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('https://ok.example/')).toBe('https://ok.example/');
  });

  it('cuts content over 280 characters behind Read More, near a word boundary', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    expect(words.length).toBeGreaterThan(CONTENT_LIMIT);
    const short = shownContent(words, false);
    expect(short.long).toBe(true);
    const text = join(short.parts);
    expect(text.endsWith('…')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(CONTENT_LIMIT + 1);
    expect(words.startsWith(text.slice(0, -1))).toBe(true);
    expect(join(shownContent(words, true).parts)).toBe(words);
    expect(shownContent('x'.repeat(280), false)).toEqual({
      parts: [{ kind: 'text', text: 'x'.repeat(280) }],
      long: false,
    });
  });

  it('loads remote media through the image proxy and local or data icons directly', () => {
    expect(mediaSrc('https://pbs.example/a.png?x=1&y=2')).toBe(
      '/api/proxy/image?url=https%3A%2F%2Fpbs.example%2Fa.png%3Fx%3D1%26y%3D2',
    );
    expect(mediaSrc('/api/news/assets/icons/wire.svg')).toBe('/api/news/assets/icons/wire.svg');
    expect(mediaSrc('data:image/svg+xml,%3Csvg%3E')).toBe('data:image/svg+xml,%3Csvg%3E');
    expect(mediaSrc('//evil.example/x.png')).toBeNull();
    expect(mediaSrc('javascript:alert(1)')).toBeNull();
    expect(mediaSrc(null)).toBeNull();
    expect(isVideo('https://v.example/clip.mp4?t=1')).toBe(true);
    expect(isVideo('https://v.example/chart.png')).toBe(false);
  });
});

describe('readable text', () => {
  it('writes USDⓈ-M as USDS-M (no font the app relies on has the circled S), in text but not in links', () => {
    const parts = contentParts(
      'Binance Futures will launch USDⓈ-M HYPE perpetual https://example.com/USDⓈ-M',
    );
    expect(parts[0]).toEqual({ kind: 'text', text: 'Binance Futures will launch USDS-M HYPE perpetual ' });
    expect(parts[1]?.kind).toBe('link');
    expect(readable('USDⓈ-M')).toBe('USDS-M');
  });
});
