import { describe, expect, it } from 'vitest';
import {
  compileKeywords,
  KeywordFilter,
  keywordTexts,
  matchesKeywords,
  signalPasses,
  splitTerms,
} from './keywords';

const f = (include: string[], exclude: string[] = []) => KeywordFilter.parse({ include, exclude });

describe('keyword matching', () => {
  it('lets everything through when the filter is empty', () => {
    expect(matchesKeywords(f([]), 'anything at all')).toBe(true);
    expect(matchesKeywords(f([]), '')).toBe(true);
  });

  it('needs one include term, and no exclude term', () => {
    const filter = f(['listing', 'hack'], ['perpetual']);
    expect(matchesKeywords(filter, 'Binance will list SOL')).toBe(false);
    expect(matchesKeywords(filter, 'Binance listing: SOL')).toBe(true);
    expect(matchesKeywords(filter, 'Exchange HACK drains $40M')).toBe(true);
    expect(matchesKeywords(filter, 'Binance listing of SOL perpetual contracts')).toBe(false);
    expect(matchesKeywords(f([], ['perpetual']), 'BTC tops 100k')).toBe(true);
  });

  it('matches whole words only, or a prefix with a trailing star', () => {
    expect(matchesKeywords(f(['list']), 'New listing today')).toBe(false);
    expect(matchesKeywords(f(['list']), 'Added to the list.')).toBe(true);
    expect(matchesKeywords(f(['list*']), 'New listing today')).toBe(true);
    expect(matchesKeywords(f(['list*']), 'delisting')).toBe(false);
    expect(matchesKeywords(f(['eth']), 'Tether mints')).toBe(false);
  });

  it('ignores case, accents and punctuation around words', () => {
    expect(matchesKeywords(f(['sec']), '"SEC," said the report.')).toBe(true);
    expect(matchesKeywords(f(['sec']), '(sec)')).toBe(true);
    expect(matchesKeywords(f(['cafe']), 'Café opens a BTC desk')).toBe(true);
    expect(matchesKeywords(f(['Élan']), 'elan wallet')).toBe(true);
    expect(matchesKeywords(f(['ＳＯＬ']), 'SOL pumps')).toBe(true);
    expect(matchesKeywords(f(['binance']), 'Binance’s new pair')).toBe(true);
  });

  it('matches a phrase as a phrase, across spaces and punctuation but not other words', () => {
    const etf = f(['spot etf']);
    expect(matchesKeywords(etf, 'SEC approves spot ETF')).toBe(true);
    expect(matchesKeywords(etf, 'SEC approves Spot-ETF filings')).toBe(true);
    expect(matchesKeywords(etf, 'SEC approves   spot\n ETF')).toBe(true);
    expect(matchesKeywords(etf, 'spot bitcoin ETF')).toBe(false);
    expect(matchesKeywords(etf, 'ETF spot')).toBe(false);
    expect(matchesKeywords(f(['"spot etf"']), 'the spot ETF')).toBe(true);
  });

  it('tells a cashtag apart when the term is one', () => {
    expect(matchesKeywords(f(['$SOL']), 'Buying $SOL now')).toBe(true);
    expect(matchesKeywords(f(['$SOL']), 'Buying SOL now')).toBe(false);
    expect(matchesKeywords(f(['sol']), 'Buying $SOL now')).toBe(true);
    expect(matchesKeywords(f(['sol']), 'Solana up')).toBe(false);
    expect(matchesKeywords(f([], ['$btc']), 'BTC and $ETH')).toBe(true);
  });

  it('matches words in other scripts', () => {
    expect(matchesKeywords(f(['币安']), '币安 上线 SOL')).toBe(true);
    expect(matchesKeywords(f(['биржа']), 'Биржа взломана')).toBe(true);
    expect(KeywordFilter.safeParse({ include: ['🚀'] }).success).toBe(false);
  });

  it('reads the text, the quoted text and the source name, never a phrase across them', () => {
    const item = {
      content: 'Big news soon',
      metadata: { source_name: 'Binance Announcements' },
      quote_data: { content: 'Listing of ABC spot', source_name: 'Tree News' },
    };
    expect(signalPasses(f(['announcements']), item)).toBe(true);
    expect(signalPasses(f(['listing']), item)).toBe(true);
    expect(signalPasses(f(['tree news']), item)).toBe(true);
    expect(signalPasses(f(['soon binance']), item)).toBe(false);
    expect(signalPasses(f([], ['abc']), item)).toBe(false);
    expect(keywordTexts({ ...item, quote_data: null })).toEqual(['Big news soon', 'Binance Announcements']);
    const compiled = compileKeywords(f(['news']));
    expect(signalPasses(compiled, item)).toBe(true);
  });
});

describe('keyword validation', () => {
  const issues = (body: unknown) => {
    const r = KeywordFilter.safeParse(body);
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };

  it('trims, collapses spaces, drops repeats and defaults the lists', () => {
    expect(KeywordFilter.parse({ include: ['  spot   etf ', 'Hack', 'hack'] })).toEqual({
      include: ['spot etf', 'Hack'],
      exclude: [],
    });
    expect(KeywordFilter.parse({})).toEqual({ include: [], exclude: [] });
  });

  it('holds each list to 20 terms of 1 to 60 characters with a letter or digit', () => {
    const many = Array.from({ length: 21 }, (_, i) => `w${i}`);
    expect(issues({ include: many })).toEqual(['Include may hold at most 20 words or phrases.']);
    expect(issues({ exclude: ['x'.repeat(61)] })).toEqual([
      'Each exclude word or phrase must be 1 to 60 characters.',
    ]);
    expect(issues({ include: ['   '] })).toEqual(['Each include word or phrase must be 1 to 60 characters.']);
    expect(issues({ include: ['$!'] })).toEqual([
      'Each include word or phrase must contain a letter or a digit.',
    ]);
    expect(issues({ include: 'hack' })).toEqual(['Include must be a list of words.']);
    expect(issues({ include: Array.from({ length: 20 }, (_, i) => `w${i}`) })).toEqual([]);
  });

  it('splits a comma list as typed', () => {
    expect(splitTerms('listing, hack,,  spot etf ')).toEqual(['listing', 'hack', 'spot etf']);
    expect(splitTerms('')).toEqual([]);
  });
});
