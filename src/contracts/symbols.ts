/**
 * The supported symbols (docs/product.md §9: a fixed list of about 120 tickers, quoted against USDT), with names
 * and a brand colour for the generated icon. One list for the whole product: the market module serves
 * it, the header search matches over it, and trading validates against it.
 */
export interface SymbolInfo {
  /** Exchange symbol, e.g. `BTCUSDT`. */
  symbol: string;
  /** The base asset as the user types it, e.g. `BTC`. */
  ticker: string;
  /** `BTC/USDT`. */
  pair: string;
  name: string;
  /** A small SVG icon (letters on the brand colour) as a data: URL; generated, no network. */
  icon: string;
}

export const QUOTE = 'USDT';

/** [ticker, name, brand colour], roughly by market size. */
const TABLE: readonly (readonly [string, string, string])[] = [
  ['BTC', 'Bitcoin', '#f7931a'],
  ['ETH', 'Ethereum', '#627eea'],
  ['BNB', 'BNB', '#f3ba2f'],
  ['SOL', 'Solana', '#9945ff'],
  ['XRP', 'XRP', '#23292f'],
  ['DOGE', 'Dogecoin', '#c2a633'],
  ['ADA', 'Cardano', '#0033ad'],
  ['TRX', 'TRON', '#ff060a'],
  ['AVAX', 'Avalanche', '#e84142'],
  ['LINK', 'Chainlink', '#2a5ada'],
  ['DOT', 'Polkadot', '#e6007a'],
  ['TON', 'Toncoin', '#0098ea'],
  ['SUI', 'Sui', '#4da2ff'],
  ['LTC', 'Litecoin', '#345d9d'],
  ['BCH', 'Bitcoin Cash', '#8dc351'],
  ['NEAR', 'NEAR Protocol', '#00c08b'],
  ['APT', 'Aptos', '#2e7d6b'],
  ['UNI', 'Uniswap', '#ff007a'],
  ['ICP', 'Internet Computer', '#29abe2'],
  ['ETC', 'Ethereum Classic', '#328332'],
  ['XLM', 'Stellar', '#3e4a59'],
  ['HBAR', 'Hedera', '#3a3a3a'],
  ['FIL', 'Filecoin', '#0090ff'],
  ['ATOM', 'Cosmos', '#2e3148'],
  ['ARB', 'Arbitrum', '#28a0f0'],
  ['OP', 'Optimism', '#ff0420'],
  ['INJ', 'Injective', '#0082fa'],
  ['IMX', 'Immutable', '#17b5cb'],
  ['STX', 'Stacks', '#5546ff'],
  ['SEI', 'Sei', '#9b1c2e'],
  ['TIA', 'Celestia', '#7b2bf9'],
  ['RENDER', 'Render', '#cf1011'],
  ['FET', 'Artificial Superintelligence Alliance', '#1d2951'],
  ['GRT', 'The Graph', '#6747ed'],
  ['AAVE', 'Aave', '#b6509e'],
  ['LDO', 'Lido DAO', '#f69988'],
  ['CRV', 'Curve DAO', '#40649f'],
  ['SNX', 'Synthetix', '#00d1ff'],
  ['COMP', 'Compound', '#00d395'],
  ['SUSHI', 'SushiSwap', '#fa52a0'],
  ['1INCH', '1inch', '#1b314f'],
  ['DYDX', 'dYdX', '#6966ff'],
  ['GMX', 'GMX', '#2d42fc'],
  ['PENDLE', 'Pendle', '#1b9bd2'],
  ['JUP', 'Jupiter', '#28c8a0'],
  ['PYTH', 'Pyth Network', '#7142cf'],
  ['WLD', 'Worldcoin', '#3c3c3c'],
  ['ENA', 'Ethena', '#5a5a5a'],
  ['ONDO', 'Ondo', '#1d3ac3'],
  ['TAO', 'Bittensor', '#404040'],
  ['ALGO', 'Algorand', '#3d3d3d'],
  ['VET', 'VeChain', '#15bdff'],
  ['EGLD', 'MultiversX', '#23f7dd'],
  ['XTZ', 'Tezos', '#2c7df7'],
  ['EOS', 'EOS', '#443f54'],
  ['THETA', 'Theta Network', '#2ab8e6'],
  ['AXS', 'Axie Infinity', '#0055d5'],
  ['SAND', 'The Sandbox', '#00adef'],
  ['MANA', 'Decentraland', '#ff2d55'],
  ['APE', 'ApeCoin', '#0054f9'],
  ['GALA', 'Gala', '#2b2b2b'],
  ['CHZ', 'Chiliz', '#cd0124'],
  ['ENJ', 'Enjin Coin', '#624dbf'],
  ['FLOW', 'Flow', '#00ef8b'],
  ['KAVA', 'Kava', '#ff433e'],
  ['NEO', 'Neo', '#58bf00'],
  ['IOTA', 'IOTA', '#404040'],
  ['ZEC', 'Zcash', '#ecb244'],
  ['DASH', 'Dash', '#008ce7'],
  ['XMR', 'Monero', '#ff6600'],
  ['QNT', 'Quant', '#585e63'],
  ['RUNE', 'THORChain', '#33ff99'],
  ['KSM', 'Kusama', '#333333'],
  ['MINA', 'Mina', '#e39844'],
  ['ROSE', 'Oasis Network', '#0092f6'],
  ['ZIL', 'Zilliqa', '#49c1bf'],
  ['ONE', 'Harmony', '#00aee9'],
  ['CELO', 'Celo', '#35d07f'],
  ['ANKR', 'Ankr', '#2e6bf6'],
  ['LRC', 'Loopring', '#1c60ff'],
  ['BAT', 'Basic Attention Token', '#ff5000'],
  ['ZRX', '0x', '#302c2c'],
  ['YFI', 'yearn.finance', '#006ae3'],
  ['BAL', 'Balancer', '#1e1e1e'],
  ['UMA', 'UMA', '#ff4a4a'],
  ['BAND', 'Band Protocol', '#516aff'],
  ['STORJ', 'Storj', '#2683ff'],
  ['CAKE', 'PancakeSwap', '#d1884f'],
  ['RSR', 'Reserve Rights', '#000000'],
  ['AR', 'Arweave', '#222326'],
  ['WIF', 'dogwifhat', '#a8715a'],
  ['1000PEPE', 'Pepe (1000)', '#3d9a3d'],
  ['1000SHIB', 'Shiba Inu (1000)', '#ffa409'],
  ['1000BONK', 'Bonk (1000)', '#f8a300'],
  ['1000FLOKI', 'Floki (1000)', '#f2a900'],
  ['ORDI', 'ORDI', '#3d3d3d'],
  ['NOT', 'Notcoin', '#1f1f1f'],
  ['PEOPLE', 'ConstitutionDAO', '#3a6ea5'],
  ['BOME', 'BOOK OF MEME', '#3b8d2f'],
  ['ENS', 'Ethereum Name Service', '#5284ff'],
  ['BLUR', 'Blur', '#ff6b00'],
  ['MASK', 'Mask Network', '#1c68f3'],
  ['CFX', 'Conflux', '#1e3de4'],
  ['KAS', 'Kaspa', '#70c7ba'],
  ['JTO', 'Jito', '#2f9d76'],
  ['STRK', 'Starknet', '#ec796b'],
  ['ZK', 'ZKsync', '#1e69ff'],
  ['ZRO', 'LayerZero', '#2b2b2b'],
  ['EIGEN', 'EigenLayer', '#1a0c6d'],
  ['ETHFI', 'ether.fi', '#4c3ae0'],
  ['POL', 'Polygon', '#8247e5'],
  ['IOTX', 'IoTeX', '#00d4d5'],
  ['QTUM', 'Qtum', '#2e9ad0'],
  ['GMT', 'STEPN', '#d6b868'],
  ['ARKM', 'Arkham', '#3b3b3b'],
  ['TRUMP', 'Official Trump', '#b28b2e'],
  ['VIRTUAL', 'Virtuals Protocol', '#2f8fb0'],
  ['HYPE', 'Hyperliquid', '#3ae0b0'],
  ['PENGU', 'Pudgy Penguins', '#4b83c4'],
];

function initials(ticker: string): string {
  const letters = ticker.replace(/^1000/, '');
  return letters.slice(0, letters.length > 3 ? 2 : 3);
}

/** A round icon with the ticker's first letters; an SVG data: URL, so it needs no request. */
export function symbolIcon(ticker: string, color: string): string {
  const text = initials(ticker);
  const size = text.length === 3 ? 11 : 14;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">` +
    `<circle cx="16" cy="16" r="16" fill="${color}"/>` +
    `<text x="16" y="16" dy=".35em" text-anchor="middle" font-family="Arial,sans-serif" ` +
    `font-weight="700" font-size="${size}" fill="#fff">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export const SYMBOLS: readonly SymbolInfo[] = TABLE.map(([ticker, name, color]) => ({
  symbol: `${ticker}${QUOTE}`,
  ticker,
  pair: `${ticker}/${QUOTE}`,
  name,
  icon: symbolIcon(ticker, color),
}));

const BY_SYMBOL = new Map(SYMBOLS.map((s) => [s.symbol, s]));
const BY_TICKER = new Map(SYMBOLS.map((s) => [s.ticker, s]));

/** The entry for an exchange symbol (`BTCUSDT`), case-insensitive. */
export function findSymbol(symbol: string): SymbolInfo | undefined {
  return BY_SYMBOL.get(symbol.toUpperCase());
}

/** The entry for a ticker (`btc`), case-insensitive. */
export function findTicker(ticker: string): SymbolInfo | undefined {
  return BY_TICKER.get(ticker.toUpperCase());
}

/**
 * The exchange symbol a news tag is priced and traded on: the coin's own pair, or its 1000-unit
 * contract (`PEPE` → `1000PEPEUSDT`, as the server prices it at arrival); undefined when neither trades.
 */
export function contractSymbolOf(ticker: string): string | undefined {
  return contractOf(ticker)?.symbol;
}

/** The symbol a news tag is traded on (see {@link contractSymbolOf}): `FLOKI` → 1000FLOKI/USDT. */
export function contractOf(ticker: string): SymbolInfo | undefined {
  const upper = ticker.toUpperCase();
  return findTicker(upper) ?? findTicker(`1000${upper}`);
}
