import type { AssetDetail } from './analysis';
import { contractOf } from './symbols';

/**
 * Which news tags can be traded here (docs/labelling.md §5). A tag is any coin the news is about; only
 * one with a futures contract on the symbol list (`PEPE` on `1000PEPEUSDT`) is offered for trading. A
 * stablecoin is tagged when the news is about it (a depeg, a mint, a freeze) and is shown, never traded:
 * there is no USDT contract. The server's analyzer, the card, the trade commands and the rules read it here.
 */

/** The stablecoins the analyzer tags, by ticker, with the name it knows them by. */
export const STABLECOINS: Readonly<Record<string, string>> = {
  USDT: 'Tether',
  USDC: 'USD Coin',
  DAI: 'Dai',
  USDE: 'Ethena USDe',
  FDUSD: 'First Digital USD',
  TUSD: 'TrueUSD',
  USDD: 'USDD',
  PYUSD: 'PayPal USD',
  UST: 'TerraUSD',
  BUSD: 'Binance USD',
  FRAX: 'Frax',
  LUSD: 'Liquity USD',
  GUSD: 'Gemini Dollar',
  USDP: 'Pax Dollar',
  EURC: 'Euro Coin',
  RLUSD: 'Ripple USD',
};

export const isStablecoin = (ticker: string): boolean => Object.hasOwn(STABLECOINS, ticker.toUpperCase());

/** Whether a tag trades here: the product has a futures contract for it. */
export const isTradable = (ticker: string): boolean => contractOf(ticker) !== undefined;

/** The same sentences wherever a tag that does not trade is shown or refused. */
export const TRADABILITY_TEXT = {
  /** The title of a tag without a contract. */
  noContractTitle: 'Not tradable here: no futures contract',
  /** The title of a stablecoin's tag. */
  stablecoinTitle: (ticker: string) => `${ticker} is a stablecoin: shown, not traded`,
  /** A command, a trade button or a rule given such a tag. */
  noContract: (ticker: string) => `${ticker} has no futures contract here.`,
} as const;

/** The title a tag that does not trade shows. */
export function untradedTitle(ticker: string): string {
  return isStablecoin(ticker) ? TRADABILITY_TEXT.stablecoinTitle(ticker) : TRADABILITY_TEXT.noContractTitle;
}

/** One detail per tag, in the tags' order: whether it trades here and whether it is a stablecoin. */
export function assetDetailsOf(assets: readonly string[]): AssetDetail[] {
  return assets.map((symbol) => ({
    symbol,
    tradable: isTradable(symbol),
    stablecoin: isStablecoin(symbol),
  }));
}
