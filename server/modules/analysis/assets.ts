import { readFileSync } from 'node:fs';
import {
  ASSET_TABLE,
  CONTEXT_WORDS,
  EXTRA_TABLE,
  NOT_ASSETS,
  QUOTES,
  STABLE_TABLE,
  SYMBOL_ALIASES,
  type SymbolGuard,
} from './assets-table';
import { afterListingVerb, inList, inNotice, isVenueChain, stablecoinAsUnit } from './assets-context';
import { isNumberToken, type NormalizedText, type Token } from './normalize';
import { fromRoot } from '../../paths';

/**
 * Tags the coins an item is about, following docs/labelling.md §5: every coin of coins.json (thousands,
 * built by `npm run build:coins`), as its ticker (`PEPE`, never the contract `1000PEPE`). Names and
 * aliases of the curated tables (longest first, so "Bitcoin Cash" is BCH and never also BTC), symbols
 * with their guards, and for ambiguous symbols and names the evidence of a trading word, a pair, a price
 * or another ticker nearby. A symbol that is an English word or a common acronym is tagged only from a
 * cashtag, a pair, or in brackets after the coin's name. A stablecoin is tagged when the item is about
 * it (its peg, supply, issuer, a freeze, a listing), never when it only denominates an amount, quotes a
 * pair or names a margin type.
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
  /** The coin's name as the table spells it, lowercased words (for "Name (SYM)"). */
  nameWords: string[];
  /** From the curated tables (its guard was chosen by hand). */
  curated: boolean;
}

interface CoinRow {
  name: string;
  word: boolean;
  /** The futures contract's base here (`1000PEPE` for PEPE), when the coin is tradable. */
  contract: string | undefined;
  /** A stablecoin (flag `s`): tagged only when the item is about it, never tradable. */
  stablecoin: boolean;
}

export const COINS_FILE = fromRoot('server/modules/analysis/coins.json');

function loadCoins(): Map<string, CoinRow> {
  const table = JSON.parse(readFileSync(COINS_FILE, 'utf8')) as { coins: Record<string, [string, string]> };
  const out = new Map<string, CoinRow>();
  for (const [symbol, [name, flags]] of Object.entries(table.coins)) {
    const parts = flags.split(' ');
    const contract = parts.find((f) => f.startsWith('t:'))?.slice(2);
    out.set(symbol, { name, word: parts.includes('w'), contract, stablecoin: parts.includes('s') });
  }
  return out;
}

/** Every coin that may be tagged (coins.json: the stablecoins of src/contracts/tradability.ts among them). */
export const COINS: ReadonlyMap<string, CoinRow> = loadCoins();

/** The coins that trade here (a contract on the symbol list). */
export const TRADABLE: ReadonlySet<string> = new Set(
  [...COINS].filter(([, c]) => c.contract !== undefined).map(([s]) => s),
);

/** The contract a tagged coin trades on here (`PEPE` → `1000PEPE`), or undefined when it does not. */
export function contractOf(ticker: string): string | undefined {
  return COINS.get(ticker)?.contract;
}

/** Every taggable ticker (kept under its old name for the LLM mode's filter). */
export const SUPPORTED_TICKERS: ReadonlySet<string> = new Set(COINS.keys());

const NAMES = new Map<string, NameEntry[]>();
const SYMBOL_MAP = new Map<string, SymbolEntry>();
const nameWordsOf = (name: string) => name.toLowerCase().split(/\s+/);

for (const table of [ASSET_TABLE, EXTRA_TABLE, STABLE_TABLE]) {
  for (const [ticker, [guard, ...names]] of Object.entries(table)) {
    const coin = COINS.get(ticker);
    if (!coin) continue;
    SYMBOL_MAP.set(ticker, { ticker, guard, nameWords: nameWordsOf(coin.name), curated: true });
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
}
for (const phrase of NOT_ASSETS) {
  const words = phrase.split(' ');
  const list = NAMES.get(words[0] ?? '') ?? [];
  list.unshift({ ticker: '', words, written: words, guard: 'any' });
  NAMES.set(words[0] ?? '', list);
}
// Every other coin: by its symbol only, a word-like one (`w`) strictly, any other with evidence.
for (const [ticker, coin] of COINS) {
  if (!SYMBOL_MAP.has(ticker))
    SYMBOL_MAP.set(ticker, {
      ticker,
      guard: coin.word ? 's' : 'c',
      nameWords: nameWordsOf(coin.name),
      curated: false,
    });
}
for (const [alias, ticker] of Object.entries(SYMBOL_ALIASES)) {
  const target = SYMBOL_MAP.get(ticker);
  if (target) SYMBOL_MAP.set(alias, target);
}
// A contract name (`1000PEPE`, `1000PEPEUSDT`) stands for its coin.
for (const [ticker, coin] of COINS) {
  const target = SYMBOL_MAP.get(ticker);
  if (target && coin.contract !== undefined && coin.contract !== ticker)
    SYMBOL_MAP.set(coin.contract, target);
}
/** Fiat quote currencies: never tagged, even as a cashtag. */
const NEVER = new Set(QUOTES.filter((q) => q !== 'PERP' && COINS.get(q)?.stablecoin !== true));
for (const q of NEVER) SYMBOL_MAP.delete(q);
/** The quotes a chain's deposits are named for ("USDT deposits on the Tron network"). */
const QUOTE_OR_STABLE = new Set([...NEVER, ...[...COINS].filter(([, c]) => c.stablecoin).map(([s]) => s)]);

const QUOTE_SET = new Set(QUOTES);
const FUTURES_QUOTES = new Set(['USDT', 'USDC', 'FDUSD', 'BUSD', 'PERP']);
const stripPossessive = (s: string) => s.replace(/['’]s$/i, '');

/** `SOL`, `SOLUSDT`, `1000PEPEUSDT` → the symbol entry, or undefined. */
function lookupSymbol(upper: string): SymbolEntry | undefined {
  const direct = SYMBOL_MAP.get(upper);
  if (direct) return direct;
  for (const q of QUOTES) {
    if (upper.length > q.length + 1 && upper.endsWith(q)) {
      const base = SYMBOL_MAP.get(upper.slice(0, -q.length));
      // `COUNTRY` is not COUN/TRY: fiat and lira pairs only for the curated coins.
      if (base && (base.curated || FUTURES_QUOTES.has(q))) return base;
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
  /** A word-like symbol in capitals: accepted only in a list beside another tagged coin. */
  needsList?: boolean;
  /** A chain named as where something happens ("on the Tron network"): dropped beside another coin. */
  venueChain?: 'weak' | 'strong' | 'place';
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

/** Whether the words just before position `end` spell `nameWords` (case-insensitive). */
function namedBefore(tokens: Token[], end: number, nameWords: readonly string[]): boolean {
  const start = end - nameWords.length;
  if (start < 0) return false;
  return nameWords.every((w, k) => stripPossessive(tokens[start + k]?.lower ?? '') === w);
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
  // `#AI` is a topic; `$AI` and any curated coin's hashtag are the coin.
  const cashtag = t.tagged && (t.raw.startsWith('$') || entry.curated || entry.guard !== 's');
  if (cashtag || (pair && capitals)) return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
  if (t.tagged) return undefined;
  if (pair) return undefined;
  if (entry.guard === 'a') return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
  if (!capitals) return undefined;
  if (entry.guard === 's') {
    const bracketed = tokens[i - 1]?.raw === '(' && tokens[i + 1]?.raw === ')';
    const pairNext =
      (tokens[i + 1]?.raw === '/' && (entry.curated || QUOTE_SET.has(tokens[i + 2]?.raw ?? ''))) ||
      (text[t.start + t.raw.length] === '-' && QUOTE_SET.has(tokens[i + 1]?.raw ?? '')); // `AERO-USD`
    // A word-like symbol of the generated table needs its own name before the bracket.
    const named = entry.curated || (bracketed && namedBefore(tokens, i - 1, entry.nameWords));
    if ((bracketed && named) || pairNext)
      return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
    return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false, needsList: true };
  }
  if (!entry.curated && tokens[i - 1]?.raw === '(' && tokens[i + 1]?.raw === ')')
    return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: false };
  return { ticker: entry.ticker, pos: i, span: 1, needsEvidence: entry.guard === 'c' };
}

/** The coins in `text`, in the order they first appear. */
export function tagAssets(text: NormalizedText): string[] {
  const { tokens, shouting } = text;
  const hits: Hit[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const hit = matchName(tokens, i, shouting) ?? matchSymbol(tokens, text.text, i);
    if (!hit) continue;
    // "$12M in USDC", "USDT-margined": a stablecoin as a unit names nothing the item is about.
    if (COINS.get(hit.ticker)?.stablecoin === true && stablecoinAsUnit(tokens, text.text, hit.pos, hit.span))
      hit.ticker = '';
    if (hit.ticker !== '') hit.venueChain = isVenueChain(tokens, hit.pos, hit.span, hit.ticker);
    hits.push(hit);
    i += hit.span - 1;
  }
  const tickerAt = new Set(hits.filter((h) => h.ticker !== '').map((h) => h.pos));
  const sure = new Set<number>();
  for (const h of hits)
    if (!h.needsEvidence && !h.needsList && h.ticker !== '')
      for (let k = 0; k < h.span; k++) sure.add(h.pos + k);
  // Accepting one guarded hit can be the evidence for its neighbour ("LOOM and SNT"): repeat until stable.
  const accepted = new Set<Hit>(hits.filter((h) => h.ticker !== '' && !h.needsEvidence && !h.needsList));
  for (let pass = 0, changed = true; pass < 4 && changed; pass++) {
    changed = false;
    for (const h of hits) {
      if (h.ticker === '' || accepted.has(h)) continue;
      const ok = h.needsList
        ? !shouting &&
          (inList(tokens, text.text, h.pos, sure) ||
            inNotice(tokens, text.text, h.pos, tickerAt) ||
            afterListingVerb(tokens, h.pos))
        : hasEvidence(tokens, h.pos, h.span, sure);
      if (!ok) continue;
      accepted.add(h);
      for (let k = 0; k < h.span; k++) sure.add(h.pos + k);
      changed = true;
    }
  }
  const kept = hits.filter((h) => accepted.has(h));
  const subjects = new Set(kept.filter((h) => h.venueChain === undefined).map((h) => h.ticker));
  // "USDT deposits on the Tron network": the stablecoin is the subject, the chain only where it moves.
  const stable = tokens.some(
    (t) => QUOTE_OR_STABLE.has(t.raw.replace(/^[$#]/, '')) && /^[$#]?[A-Z]+$/.test(t.raw),
  );
  const out: string[] = [];
  for (const h of kept) {
    const other = [...subjects].some((x) => x !== h.ticker);
    if (
      h.venueChain === 'place' ||
      (h.venueChain !== undefined && other) ||
      (h.venueChain === 'strong' && stable)
    )
      continue;
    if (!out.includes(h.ticker)) out.push(h.ticker);
  }
  return out;
}
