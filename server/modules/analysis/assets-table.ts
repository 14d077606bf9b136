/**
 * The asset dictionary: for each supported ticker (src/contracts/symbols.ts), how its symbol may be
 * matched and its names and aliases. Guards (docs/labelling.md §5):
 *
 * - symbol guard `a`: any case (`btc`, `BTC`); `u`: only in capitals (`SUI`); `c`: only with evidence,
 *   in capitals next to a trading word, a pair, a price or another ticker (`LINK`, `ONE`, `NEAR`, `OP`).
 *   `s`: only as a cashtag, a pair or in brackets after its name (`NOT`, a word too common for `c`).
 *   A cashtag (`$LINK`), hashtag (`#LINK`) or pair (`LINKUSDT`) always counts.
 * - a name as written: any case; `=Name`: only capitalised as written (`Stellar`, not "stellar
 *   results"); `~Name`: capitalised and next to a trading or chain word (`Optimism`, `Curve`, `Harmony`).
 *   In all-capitals text, `=` names need the same evidence as `~` names.
 */
export type SymbolGuard = 'a' | 'u' | 'c' | 's';

export const ASSET_TABLE: Readonly<Record<string, readonly [SymbolGuard, ...string[]]>> = {
  BTC: ['a', 'bitcoin', 'xbt', 'bitcoins', 'gbtc', 'ibit', 'fbtc'],
  ETH: ['a', 'ethereum', 'ether', 'eth2', 'etha', 'ethe', 'holesky', 'sepolia', 'dencun', 'pectra', 'fusaka'],
  BNB: ['a', 'bnb chain', 'bnb smart chain'],
  SOL: ['a', 'solana'],
  XRP: ['a', '=Ripple', 'ripplenet', 'xrpl', 'xrp ledger'],
  DOGE: ['a', 'dogecoin'],
  ADA: ['c', 'cardano'],
  TRX: ['a', 'tron'],
  AVAX: ['a', '=Avalanche'],
  LINK: ['c', 'chainlink'],
  DOT: ['c', 'polkadot'],
  TON: ['c', 'toncoin', 'the open network'],
  SUI: ['u', '=Sui'],
  LTC: ['a', 'litecoin'],
  BCH: ['a', 'bitcoin cash'],
  NEAR: ['c', 'near protocol', 'near foundation', '~Near'],
  APT: ['u', 'aptos'],
  UNI: ['c', 'uniswap'],
  ICP: ['u', 'internet computer', 'dfinity'],
  ETC: ['c', 'ethereum classic'],
  XLM: ['a', '=Stellar'],
  HBAR: ['a', 'hedera', 'hashgraph'],
  FIL: ['u', 'filecoin'],
  ATOM: ['c', '~Cosmos', 'cosmos hub'],
  ARB: ['u', 'arbitrum'],
  OP: ['c', '~Optimism', 'op mainnet'],
  INJ: ['u', 'injective'],
  IMX: ['u', '~Immutable', 'immutable x'],
  STX: ['u', '~Stacks'],
  SEI: ['u', '=Sei'],
  TIA: ['u', 'celestia'],
  RENDER: ['u', 'render network', '~Render', 'rndr'],
  FET: ['u', 'fetch.ai', 'artificial superintelligence alliance'],
  GRT: ['u', '=The Graph'],
  AAVE: ['a', 'aave'],
  LDO: ['u', 'lido', 'lido dao'],
  CRV: ['u', 'curve finance', 'curve dao', '~Curve'],
  SNX: ['u', 'synthetix'],
  COMP: ['c', '~Compound', 'compound finance'],
  SUSHI: ['c', 'sushiswap'],
  '1INCH': ['a', '1inch'],
  DYDX: ['a', 'dydx'],
  GMX: ['u'],
  PENDLE: ['a', 'pendle'],
  JUP: ['u', '~Jupiter'],
  PYTH: ['a', 'pyth network'],
  WLD: ['u', 'worldcoin'],
  ENA: ['u', 'ethena'],
  ONDO: ['u', '=Ondo', 'ondo finance'],
  TAO: ['c', 'bittensor'],
  ALGO: ['c', 'algorand'],
  VET: ['c', 'vechain'],
  EGLD: ['u', 'multiversx', 'elrond'],
  XTZ: ['u', 'tezos'],
  EOS: ['u'],
  THETA: ['c', 'theta network'],
  AXS: ['u', 'axie infinity', 'axie'],
  SAND: ['c', '=The Sandbox'],
  MANA: ['c', 'decentraland'],
  APE: ['c', 'apecoin'],
  GALA: ['c', 'gala games'],
  CHZ: ['u', 'chiliz'],
  ENJ: ['u', 'enjin'],
  FLOW: ['c', 'flow blockchain'],
  KAVA: ['u', '=Kava'],
  NEO: ['c'],
  IOTA: ['u', '~Iota'],
  ZEC: ['u', 'zcash'],
  DASH: ['c', '~Dash'],
  XMR: ['u', 'monero'],
  QNT: ['u', 'quant network', '~Quant'],
  RUNE: ['u', 'thorchain'],
  KSM: ['u', 'kusama'],
  MINA: ['u', 'mina protocol'],
  ROSE: ['c', 'oasis network'],
  ZIL: ['u', 'zilliqa'],
  ONE: ['c', '~Harmony'],
  CELO: ['u', '=Celo'],
  ANKR: ['u', 'ankr'],
  LRC: ['u', 'loopring'],
  BAT: ['c', 'basic attention token'],
  ZRX: ['u', '~0x', '0x protocol'],
  YFI: ['u', 'yearn.finance', 'yearn finance'],
  BAL: ['u', '=Balancer'],
  UMA: ['c'],
  BAND: ['c', 'band protocol'],
  STORJ: ['u', 'storj'],
  CAKE: ['c', 'pancakeswap'],
  RSR: ['u', 'reserve rights'],
  AR: ['c', 'arweave'],
  WIF: ['u', 'dogwifhat'],
  '1000PEPE': ['a', 'pepe'],
  '1000SHIB': ['a', 'shib', 'shiba inu', 'shibarium'],
  '1000BONK': ['a', 'bonk'],
  '1000FLOKI': ['a', 'floki'],
  ORDI: ['u'],
  NOT: ['s', 'notcoin'],
  PEOPLE: ['c', 'constitutiondao'],
  BOME: ['u', 'book of meme'],
  ENS: ['u', 'ethereum name service'],
  BLUR: ['c'],
  MASK: ['c', 'mask network'],
  CFX: ['u', 'conflux'],
  KAS: ['u', 'kaspa'],
  JTO: ['u', 'jito'],
  STRK: ['u', 'starknet'],
  ZK: ['c', 'zksync'],
  ZRO: ['u', 'layerzero'],
  EIGEN: ['u', 'eigenlayer', '=Eigen'],
  ETHFI: ['u', 'ether.fi', 'etherfi'],
  POL: ['c', '=Polygon', 'matic'],
  IOTX: ['u', 'iotex'],
  QTUM: ['u', 'qtum'],
  GMT: ['c', 'stepn'],
  ARKM: ['u', '=Arkham'],
  TRUMP: ['c', 'official trump', 'trump memecoin', 'trump token', 'trump coin'],
  VIRTUAL: ['c', 'virtuals protocol', 'virtuals'],
  HYPE: ['c', 'hyperliquid'],
  PENGU: ['u', 'pudgy penguins'],
};

/** Symbols that stand for a supported ticker (`PEPE` → `1000PEPE`), besides the ticker itself. */
export const SYMBOL_ALIASES: Readonly<Record<string, string>> = {
  PEPE: '1000PEPE',
  SHIB: '1000SHIB',
  BONK: '1000BONK',
  FLOKI: '1000FLOKI',
  MATIC: 'POL',
  RNDR: 'RENDER',
  XBT: 'BTC',
};

/**
 * Words that make an ambiguous symbol or name a ticker when they stand within three tokens of it.
 * Only trading and chain words: "crypto", "fees" or "community" are not evidence.
 */
export const CONTEXT_WORDS = new Set(
  (
    'price prices token tokens coin coins memecoin usdt usdc usd perp perps perpetual perpetuals futures ' +
    'spot pair pairs listing list lists listed delist delists delisted delisting holders airdrop staking ' +
    'stake long longs short shorts leverage margin unlock unlocks unlocked mainnet testnet network chain ' +
    'blockchain protocol foundation labs dao etf whale pump pumps pumping dump dumps dumping surges surge ' +
    'jumps rallies rally falls slides drops plunges soars rips ath breakout bullish bearish liquidated ' +
    'buyback buybacks burn burns exploit exploited hack hacked bridge superchain rollup l2 margined trading ' +
    'volume mcap tvl validators validator bags asset assets emo_rocket emo_chart_up emo_chart_down'
  ).split(' '),
);

/** Names that contain a coin's name but are not the coin (firms, media). */
export const NOT_ASSETS = [
  'dmm bitcoin',
  'bitcoin magazine',
  'bitcoin suisse',
  'bitcoin depot',
  'crypto.com',
];

/** Quote currencies that make `X/USDT`, `XUSDT` or `X-PERP` a pair. */
export const QUOTES = ['USDT', 'USDC', 'FDUSD', 'BUSD', 'TUSD', 'USD', 'PERP', 'TRY', 'EUR', 'GBP', 'KRW'];
