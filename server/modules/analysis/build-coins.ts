import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { words as popularWords } from 'popular-english-words/words.js';
import { SYMBOLS } from '../../../src/contracts/symbols';
import { STABLECOINS } from '../../../src/contracts/tradability';

/**
 * `npm run build:coins`: writes coins.json, the table of every known coin the analyzer may tag, from the
 * `cryptocurrencies` package (a maintained symbol → name list, a pinned devDependency) so nothing is read
 * from a package at run time. Each coin is `SYMBOL: [name, flags]`:
 *
 * - `w`: the symbol is an English word or a common acronym (ONE, NOT, ME, AI, SEC, CPI): tagged only with
 *   a cashtag, a pair, the coin's name or crypto context (docs/labelling.md §5);
 * - `t:CONTRACT`: tradable here, on the futures contract `CONTRACT`USDT (`PEPE` → `1000PEPE`);
 * - `s`: a stablecoin, tagged only when the news is about it and never tradable
 *   (src/contracts/tradability.ts lists them; every other stablecoin and fiat code is left out).
 */
const OUT = path.join(import.meta.dirname, 'coins.json');
const require = createRequire(import.meta.url);
const pkgFile = require.resolve('cryptocurrencies/cryptocurrencies.json');
const source = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, string>;
const version = (
  JSON.parse(readFileSync(path.join(path.dirname(pkgFile), 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** Stablecoins and fiat codes: left out of the package's list (the tagged stablecoins are added after). */
const STABLE = new Set(
  (
    'USDT USDC USDD DAI BUSD TUSD FDUSD USDP PYUSD USDE USDS GUSD FRAX LUSD SUSD USDJ USDK USDN UST USTC ' +
    'EURC EURS EURT CUSD HUSD OUSD MUSD DUSD ZUSD XUSD RLUSD USD0 USDX USDB USDG USD1 CRVUSD GHO DOLA MIM ' +
    'USD EUR GBP JPY KRW TRY CNY CNH RUB INR BRL AUD CAD CHF HKD SGD'
  ).split(' '),
);

/**
 * Acronyms and words of crypto and news writing that are also somebody's symbol in the list; they count
 * as words (`w`) besides the common English words.
 */
const ACRONYMS = (
  'SEC CFTC DOJ FBI IRS FCA ECB IMF BIS FED FOMC CPI PPI PCE GDP NFP ETF ETP ETN ETFS NFT NFTS DEX CEX DAO ' +
  'DAOS TVL ATH ATL API KYC AML OTC IPO CEO CTO CFO COO VC VCS PR AMA UTC GMT PST EST CET UK US USA EU UAE ' +
  'UN G7 G20 AI AGI ML LLM GPU CPU RWA DEFI CEFI GAMEFI SOCIALFI DEPIN L1 L2 L3 ZK EVM SVM MEV TPS P2E ' +
  'GM GN LFG WAGMI NGMI HODL FUD FOMO DCA DYOR NFA IMO TBH LOL OMG WTF BTW FYI ASAP RIP QR ID PDF APP APY ' +
  'APR ROI PNL OI LTV CDP POS POW PSA TL DR TLDR BREAKING NEWS JUST IN UPDATE ALERT LIVE NEW HOT TOP ' +
  'SBF CZ FTX HTX OKX MEXC BITGET KUCOIN BYBIT BINANCE COINBASE KRAKEN NYSE NASDAQ SPX SPY QQQ DXY VIX ' +
  'AUM OG PFP DM DMS RT QT CA TG DC YT FAQ TBA TBD EOD EOW YTD QOQ YOY MOM WOW ESG SPV LLC INC LTD PLC ' +
  'BEP BRC ERC SPL TRC SRC KST JST UX UI AMM PSG NYDFS OCC FDIC BOJ PBOC MAS SFC ESMA MICA VASP CBDC FSA ' +
  'FSC FINMA ASIC BAFIN AMF CNBC BBC WSJ FT AP CNN DPRK OFAC FATF MSTR COIN HOOD TSLA NVDA GME AMC EV HK ' +
  'CN JP KR SG DE FR CH BTCFI LST LRT AVS OP_RETURN TX TXS BPS YC VIP'
).split(' ');

const popular = new Set<string>(popularWords.slice(0, 25_000).map((w: string) => w.toUpperCase()));
const wordLike = new Set<string>([...popular, ...ACRONYMS]);

/** Tradable contracts here: `1000PEPE` trades PEPE. */
const tradable = new Map<string, string>();
for (const s of SYMBOLS) tradable.set(s.ticker.replace(/^1000(?=[A-Z])/, ''), s.ticker);

const coins: Record<string, [string, string]> = {};
for (const [symbol, rawName] of Object.entries(source).sort(([a], [b]) => a.localeCompare(b))) {
  if (!/^[A-Z0-9]{2,10}$/.test(symbol) || /^\d+$/.test(symbol) || STABLE.has(symbol)) continue;
  const name = rawName.trim().replace(/\s+/g, ' ');
  if (/\b(usd|tether|stablecoin|dollar)\b/i.test(name) || name === '') continue;
  const flags: string[] = [];
  if (wordLike.has(symbol)) flags.push('w');
  const contract = tradable.get(symbol);
  if (contract !== undefined) flags.push(`t:${contract}`);
  coins[symbol] = [name, flags.join(' ')];
}
/** Coins newer than the package's list, named in the news since (symbol → name). */
const NEWER: Record<string, string> = {
  KAITO: 'Kaito',
  NEIRO: 'Neiro',
  PNUT: 'Peanut the Squirrel',
  MOODENG: 'Moo Deng',
  GOAT: 'Goatseus Maximus',
  ACT: 'Act I: The AI Prophecy',
  DOGS: 'Dogs',
  CATI: 'Catizen',
  HMSTR: 'Hamster Kombat',
  FARTCOIN: 'Fartcoin',
  AI16Z: 'ai16z',
  GRIFFAIN: 'Griffain',
  MELANIA: 'Official Melania Meme',
  BERA: 'Berachain',
  IP: 'Story',
  LAYER: 'Solayer',
  WLFI: 'World Liberty Financial',
  USUAL: 'Usual',
  MOVE: 'Movement',
  ME: 'Magic Eden',
  BABY: 'Babylon',
  ZORA: 'Zora',
  GRASS: 'Grass',
  SONIC: 'Sonic SVM',
  S: 'Sonic',
  W: 'Wormhole',
  OM: 'MANTRA',
  HYPE: 'Hyperliquid',
  VIRTUAL: 'Virtuals Protocol',
  PENGU: 'Pudgy Penguins',
  TRUMP: 'Official Trump',
  LIBRA: 'Libra',
  MAJOR: 'Major',
  STETH: 'Lido Staked Ether',
};
for (const [symbol, name] of Object.entries(NEWER)) {
  if (!(symbol in coins) || source[symbol] === undefined)
    coins[symbol] = [
      name,
      [wordLike.has(symbol) ? 'w' : '', tradable.has(symbol) ? `t:${tradable.get(symbol)}` : '']
        .join(' ')
        .trim(),
    ];
}

// The stablecoins the analyzer tags when the news is about them: never tradable.
for (const [symbol, name] of Object.entries(STABLECOINS)) coins[symbol] = [name, 's'];

// A tradable coin missing from the package still gets a row.
for (const s of SYMBOLS) {
  const coin = s.ticker.replace(/^1000(?=[A-Z])/, '');
  if (!(coin in coins))
    coins[coin] = [
      s.name.replace(/ \(1000\)$/, ''),
      [wordLike.has(coin) ? 'w' : '', `t:${s.ticker}`].join(' ').trim(),
    ];
}

const table = { source: `cryptocurrencies@${version}`, coins };
const options = (await resolveConfig(OUT)) ?? {};
writeFileSync(OUT, await format(JSON.stringify(table), { ...options, parser: 'json' }));
const count = Object.keys(coins).length;
const tradableCount = Object.values(coins).filter(([, f]) => f.includes('t:')).length;
console.log(`${count} coins (${tradableCount} tradable here) from cryptocurrencies@${version} → ${OUT}`);
