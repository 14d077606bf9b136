import { CONTEXT_WORDS } from './assets-table';
import { isNumberToken, type Token } from './normalize';

/**
 * What the words around a ticker say about it (docs/labelling.md §5): a chain named only as the venue,
 * a list of tickers in an exchange's notice, a coin right after a listing verb. Used by `assets.ts`.
 */

/** Chains that are often only the place where something happens. */
const CHAINS = new Set([
  'ETH',
  'SOL',
  'BNB',
  'ARB',
  'OP',
  'AVAX',
  'POL',
  'TRX',
  'TON',
  'SUI',
  'APT',
  'NEAR',
  'FTM',
  'S',
]);

/**
 * "on (the) X network|chain|blockchain", "on BNB Chain", or "fork on Arbitrum" for a chain: the chain is
 * the venue, not the subject ("bullish on SOL" stays the subject).
 */
/** What a chain can host without being the story: "a DEX on Arbitrum", "a lending pool on #BSC". */
const PROJECT_NOUNS =
  /^(?:protocol|dex|pool|app|dapp|vault|lender|farm|bridge|project|platform|market|aggregator|router|contract|game|casino|memecoin|token|perps?)$/;

/** "a (perpetuals) DEX", "small DeFi farm": an indefinite subject within three words before `host`. */
function unnamed(tokens: Token[], host: number): boolean {
  for (let j = host - 1; j >= Math.max(0, host - 3); j--) {
    const w = tokens[j]?.lower ?? '';
    if (/^(?:a|an|small|tiny|unnamed|unknown|some)$/.test(w)) return true;
    if (w === 'the' || w === ',') return false;
  }
  return false;
}

export function isVenueChain(
  tokens: Token[],
  i: number,
  span: number,
  ticker: string,
): 'weak' | 'strong' | 'place' | undefined {
  const before = tokens[i - 1]?.lower ?? '';
  const before2 = tokens[i - 2]?.lower ?? '';
  // "the exploiter swapped to ETH", "funds bridged to #Ethereum": where stolen funds went.
  if (/^(to|into|through)$/.test(before) && /^(bridged|swapped|converted|laundered)$/.test(before2))
    return 'place';
  const after = tokens[i + span]?.lower ?? '';
  const last = tokens[i + span - 1]?.lower ?? '';
  const preposition = /^(on|via|across)$/;
  const onBefore = preposition.test(before) || (before === 'the' && preposition.test(before2));
  const chainWord = /^(network|chain|blockchain|mainnet|ecosystem|l2)$/;
  // "(Ethereum network deposits only)": a chain's network named for transfers.
  if (
    chainWord.test(after) &&
    /^(deposits?|withdrawals?|only|transfers?)$/.test(tokens[i + span + 1]?.lower ?? '')
  )
    return 'strong';
  if (!onBefore) return undefined;
  // "a lending protocol on Arbitrum exploited": the chain only hosts an unnamed subject ("Cetus, the
  // largest DEX on Sui" names its subject, and the chain's token moves with it).
  const host = before === 'the' ? i - 3 : i - 2;
  if (CHAINS.has(ticker) && PROJECT_NOUNS.test(tokens[host]?.lower ?? '') && unnamed(tokens, host))
    return 'place';
  if (chainWord.test(after) || (span > 1 && chainWord.test(last))) return 'strong';
  const weak =
    CHAINS.has(ticker) && !/^(bullish|bearish|long|short|betting|bet|focus|focused|all-in)$/.test(before2);
  return weak ? 'weak' : undefined;
}

/**
 * The position of the next list item after `j` in direction `d`, or -1: "A, B and C" (commas are not
 * tokens, so a neighbour counts only across a comma or a joining word).
 */
function listStep(tokens: Token[], text: string, j: number, d: 1 | -1): number {
  const next = j + d;
  if (/^(and|&|\/|or)$/.test(tokens[next]?.lower ?? '')) return next + d;
  const [a, b] = d === 1 ? [tokens[j], tokens[next]] : [tokens[next], tokens[j]];
  if (!a || !b) return -1;
  return /^\s*,\s*$/.test(text.slice(a.start + a.raw.length, b.start)) ? next : -1;
}

/** "BTT, JST and SUN": a neighbour in the list is a tagged coin. */
export function inList(tokens: Token[], text: string, i: number, sure: ReadonlySet<number>): boolean {
  return sure.has(listStep(tokens, text, i, -1)) || sure.has(listStep(tokens, text, i, 1));
}

/**
 * "Monitoring Tag to MEME, ACT and DOGS": a run of symbols in capitals joined by commas and `and`, after a
 * trading word, is a list of coins even when each is also a word: three or more anywhere after it, two
 * right after it ("Monitoring Tag to TROY and UFT").
 */
export function inNotice(tokens: Token[], text: string, i: number, at: ReadonlySet<number>): boolean {
  const isItem = (j: number) => at.has(j) && /^[A-Z0-9]{2,10}$/.test(tokens[j]?.raw ?? '');
  let lo = i;
  let count = 1;
  while (isItem(listStep(tokens, text, lo, -1))) {
    lo = listStep(tokens, text, lo, -1);
    count++;
  }
  for (let hi = i; isItem(listStep(tokens, text, hi, 1)); hi = listStep(tokens, text, hi, 1)) count++;
  if (count < 2) return false;
  for (let j = Math.max(0, lo - (count < 3 ? 3 : 6)); j < lo; j++)
    if (CONTEXT_WORDS.has(tokens[j]?.lower ?? '')) return true;
  return false;
}

/** "KuCoin Lists GOAT on Spot Market": a symbol in capitals right after a listing verb names the coin. */
export function afterListingVerb(tokens: Token[], i: number): boolean {
  // "USDⓈ-M GPS Perpetual Contract": the same for the symbol a perpetual contract is named after.
  if (/^(?:perpetual|perp)$/.test(tokens[i + 1]?.lower ?? '')) return true;
  return /^(?:lists?|listed|listing|delists?|delisted|delisting)$/.test(tokens[i - 1]?.lower ?? '');
}

/** Words after a stablecoin that make it a quote or a margin type: "USDT-margined", "USDC pairs", "USDⓈ-M". */
const UNIT_AFTER =
  /^(?:margined|margin|m|pairs?|markets?|quoted|denominated|perpetuals?|perps?|futures|contracts?)$/;
/** Words before "in" that make the stablecoin the currency of a payment: "paid in USDC". */
const PAID_IN = /^(?:paid|pays?|denominated|settled|priced|payouts?|rewards?|salar(?:y|ies)|payments?)$/;
/** The stablecoin's own supply: "mints 1B USDT", "2,000,000,000 #USDT minted", "froze 3M USDT". */
const SUPPLY =
  /^(?:mints?|minted|minting|burns?|burned|burnt|burning|freezes?|froze|frozen|freezing|blacklist\w*|issues?|issued|issuing|printed|prints?|redeem\w*|redemptions?)$/;

/**
 * A stablecoin named only as a unit, not as what the item is about (docs/labelling.md §5): the amount
 * it denominates ("$12M in USDC stolen", "raised 40M USDT"), the quote of a pair or market ("USDT
 * pairs", `SOL-USDC`), a margin type ("USDT-margined", "USDC-M"). Its own supply ("mints 1B USDT") is about it.
 */
export function stablecoinAsUnit(tokens: Token[], text: string, i: number, span: number): boolean {
  // The quote side of `SOL-USDC` (the side after `/` never reaches here).
  if (i > 0 && text[(tokens[i]?.start ?? 0) - 1] === '-') return true;
  const after = tokens[i + span]?.lower ?? '';
  if (UNIT_AFTER.test(after)) return true;
  if (after === 'trading' && /^(?:pairs?|markets?)$/.test(tokens[i + span + 1]?.lower ?? '')) return true;
  const before = tokens[i - 1]?.lower ?? '';
  const before2 = tokens[i - 2]?.lower ?? '';
  const amount =
    isNumberToken(tokens[i - 1]) ||
    (/^(?:in|of)$/.test(before) &&
      (isNumberToken(tokens[i - 2]) || /^(?:worth|millions|billions)$/.test(before2)));
  if (/^in$/.test(before) && PAID_IN.test(before2)) return true;
  if (!amount) return false;
  for (let j = Math.max(0, i - 4); j < Math.min(tokens.length, i + span + 3); j++)
    if (SUPPLY.test(tokens[j]?.lower ?? '')) return false;
  return true;
}
