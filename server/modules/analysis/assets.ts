import { SYMBOLS } from '../../../src/contracts/symbols';
import {
  ASSET_TABLE,
  CONTEXT_WORDS,
  NOT_ASSETS,
  QUOTES,
  SYMBOL_ALIASES,
  type SymbolGuard,
} from './assets-table';
import { isNumberToken, type NormalizedText, type Token } from './normalize';

/**
 * Tags the supported tickers an item is about, following docs/labelling.md §5: names and aliases
 * (longest first, so "Bitcoin Cash" is BCH and never also BTC), symbols with their guards, and for
 * ambiguous symbols and names the evidence of a trading word, a pair, a price or another ticker nearby.
 */

type NameGuard = 'any' | 'cap' | 'context';

interface NameEntry {
  ticker: string;
  words: string[];
  /** As written in the table, for the capitalisation guard. */
  written: string[];
  guard: NameGuard;
}

interface SymbolEntry {
  ticker: string;
  guard: SymbolGuard;
}

/** Only tickers on the supported list are ever tagged; a dictionary row for anything else is ignored. */
export const SUPPORTED_TICKERS: ReadonlySet<string> = new Set(SYMBOLS.map((s) => s.ticker));

const NAMES = new Map<string, NameEntry[]>();
const SYMBOL_MAP = new Map<string, SymbolEntry>();

for (const [ticker, [guard, ...names]] of Object.entries(ASSET_TABLE)) {
  if (!SUPPORTED_TICKERS.has(ticker)) continue;
  SYMBOL_MAP.set(ticker, { ticker, guard });
  for (const name of names) {
    const nameGuard: NameGuard = name.startsWith('=') ? 'cap' : name.startsWith('~') ? 'context' : 'any';
    const written = name.replace(/^[=~]/, '').split(' ');
    const words = written.map((w) => w.toLowerCase());
    const list = NAMES.get(words[0] ?? '') ?? [];
    list.push({ ticker, words, written, guard: nameGuard });
    list.sort((a, b) => b.words.length - a.words.length);
    NAMES.set(words[0] ?? '', list);
  }
}
for (const phrase of NOT_ASSETS) {
  const words = phrase.split(' ');
  const list = NAMES.get(words[0] ?? '') ?? [];
  list.unshift({ ticker: '', words, written: words, guard: 'any' });
  NAMES.set(words[0] ?? '', list);
}
for (const ticker of SUPPORTED_TICKERS) {
  if (!SYMBOL_MAP.has(ticker)) SYMBOL_MAP.set(ticker, { ticker, guard: 'u' });
}
for (const [alias, ticker] of Object.entries(SYMBOL_ALIASES)) {
  const target = SYMBOL_MAP.get(ticker);
  if (target) SYMBOL_MAP.set(alias, target);
}

const QUOTE_SET = new Set(QUOTES);
const stripPossessive = (s: string) => s.replace(/['’]s$/i, '');

/** `SOL`, `SOLUSDT`, `1000PEPEUSDT` → the symbol entry, or undefined. */
function lookupSymbol(upper: string): SymbolEntry | undefined {
  const direct = SYMBOL_MAP.get(upper);
  if (direct) return direct;
  for (const q of QUOTES) {
    if (upper.length > q.length + 1 && upper.endsWith(q)) {
      const base = SYMBOL_MAP.get(upper.slice(0, -q.length));
      if (base) return base;
    }
  }
  return undefined;
}

const WINDOW = 4;
const QUOTE_MARKET_SKIP = new Set(['and', 'krw', 'usdt', 'usdc', 'fdusd', 'btc', 'eth', 'bnb', 'try', 'eur']);

/**
 * `BTC` in "adds X to BTC market" or "on KRW, BTC and USDT markets" names a quote market, not an asset
 * the item is about (only when another asset is tagged).
 */
function isQuoteMarket(tokens: Token[], i: number): boolean {
  for (let j = i + 1; j < Math.min(tokens.length, i + 6); j++) {
    const w = tokens[j]?.lower ?? '';
    if (/^(markets?|pairs?)$/.test(w)) return true;
    if (!QUOTE_MARKET_SKIP.has(w)) return false;
  }
  return false;
}

/** Whether a token within four of position `i` is evidence that an ambiguous word there is a ticker. */
function hasEvidence(tokens: Token[], i: number, span: number, tagged: ReadonlySet<number>): boolean {
  const next = tokens[i + span];
  if (next && (next.raw === '/' || QUOTE_SET.has(next.raw))) return true;
  if (tokens[i - 1]?.raw === '(' && next?.raw === ')') return true;
  if (isNumberToken(tokens[i - 1])) return true;
  for (let j = Math.max(0, i - WINDOW); j < Math.min(tokens.length, i + span + WINDOW); j++) {
    if (j >= i && j < i + span) continue;
    const t = tokens[j];
    if (!t) continue;
    if (tagged.has(j)) return true;
    if (CONTEXT_WORDS.has(t.lower)) return true;
    if (/^[+-]?\d[\d.,]*%$/.test(t.raw) || /^[+-]?\$\d/.test(t.raw)) return true;
  }
  return false;
}

interface Hit {
  ticker: string;
  pos: number;
  span: number;
  /** Accepted only with evidence nearby. */
  needsEvidence: boolean;
}

/** A hit that matches words but tags nothing (a firm's name, a quote market, a venue). */
const NO_HIT: Hit = { ticker: '', pos: 0, span: 1, needsEvidence: false };

/** Exchanges whose name is also a token's: "listed on Hyperliquid" names the venue, not HYPE. */
const VENUES = new Set(['HYPE', 'CRV', 'UNI', 'CAKE', 'SUSHI', 'JUP']);

function matchName(tokens: Token[], i: number, shouting: boolean): Hit | undefined {
  const first = tokens[i];
  if (!first) return undefined;
  const entries = NAMES.get(stripPossessive(first.lower)) ?? NAMES.get(first.lower);
  if (!entries) return undefined;
  for (const e of entries) {
    let ok = true;
    for (let k = 0; k < e.words.length && ok; k++) {
      const t = tokens[i + k];
      ok = t !== undefined && stripPossessive(t.lower) === e.words[k];
      if (ok && e.guard !== 'any' && !shouting) ok = stripPossessive(t?.raw ?? '') === e.written[k];
    }
    if (!ok) continue;
    const needsEvidence = e.guard === 'context' || (e.guard === 'cap' && shouting);
    const venue = VENUES.has(e.ticker) && /^(on|via)$/.test(tokens[i - 1]?.lower ?? '');
    return { ticker: venue ? '' : e.ticker, pos: i, span: e.words.length, needsEvidence };
  }
  return undefined;
}

function matchSymbol(tokens: Token[], text: string, i: number): Hit | undefined {
  const t = tokens[i];
  if (!t || isNumberToken(t) || t.raw.length > 16) return undefined;
  // The quote side of a pair (`ANKR/BTC`) is not an asset the item is about.
  if (tokens[i - 1]?.raw === '/' && i >= 2) return undefined;
  // `.eth` names and `Coinbase.com`-style domains are not tickers.
  if (text[t.start - 1] === '.') return undefined;
  const bare = stripPossessive(t.tagged ? t.raw.slice(1) : t.raw);
  const entry = lookupSymbol(bare.toUpperCase());
  if (!entry) return undefined;
  const capitals = bare === bare.toUpperCase() && /[A-Z]/.test(bare);
  if (/^(BTC|ETH|BNB)$/i.test(bare) && isQuoteMarket(tokens, i)) return { ...NO_HIT, pos: i };
  const pair = !SYMBOL_MAP.has(bare.toUpperCase());
  if (t.tagged || (pair && capitals)) return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
  if (pair) return undefined;
  if (entry.guard === 'a') return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
  if (!capitals) return undefined;
  if (entry.guard === 's') {
    const bracketed = tokens[i - 1]?.raw === '(' && tokens[i + 1]?.raw === ')';
    const pairNext = tokens[i + 1]?.raw === '/';
    return bracketed || pairNext
      ? { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false }
      : undefined;
  }
  return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: entry.guard === 'c' };
}

/** The supported tickers in `text`, in the order they first appear. */
export function tagAssets(text: NormalizedText): string[] {
  const { tokens, shouting } = text;
  const hits: Hit[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const hit = matchName(tokens, i, shouting) ?? matchSymbol(tokens, text.text, i);
    if (!hit) continue;
    hits.push(hit);
    i += hit.span - 1;
  }
  const sure = new Set<number>();
  for (const h of hits)
    if (!h.needsEvidence && h.ticker !== '') for (let k = 0; k < h.span; k++) sure.add(h.pos + k);
  const out: string[] = [];
  for (const h of hits) {
    if (h.ticker === '' || (h.needsEvidence && !hasEvidence(tokens, h.pos, h.span, sure))) continue;
    if (!out.includes(h.ticker)) out.push(h.ticker);
  }
  return out;
}
