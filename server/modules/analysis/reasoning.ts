import type { EventType, Sentiment } from '../../../src/contracts/analysis';
import type { EventMatch } from './events';
import type { Authority } from './impact';

/** One sentence naming the event, the key phrase, the assets and why it matters (docs/labelling.md). */

const LABEL: Record<EventType, string> = {
  listing: 'Exchange listing',
  delisting: 'Delisting',
  hack: 'Hack or exploit',
  depeg: 'Stablecoin depeg',
  withdrawals_halted: 'Halted withdrawals',
  insolvency: 'Insolvency',
  regulation: 'Regulatory news',
  etf: 'ETF news',
  partnership: 'Partnership',
  adoption: 'Adoption news',
  upgrade: 'Network upgrade news',
  outage: 'Network outage',
  unlock: 'Token unlock',
  buyback_burn: 'Buyback or burn',
  fundraise: 'Fundraise',
  macro: 'Macro news',
  liquidation: 'Liquidations',
  whale_transfer: 'Whale transfer',
  price: 'Price move',
  other: 'No market-moving event',
};

type Key = `${EventType}:${Sentiment}`;

const WHY: Partial<Record<Key, string>> = {
  'listing:positive': 'new listings on major exchanges have lifted tokens about 6% on the day on average',
  'listing:negative': 'an expected listing that falls through removes demand traders had priced in',
  'delisting:negative': 'a delisting cuts liquidity and access, and tokens usually fall on the notice',
  'delisting:positive': 'a reversed delisting restores liquidity and access',
  'hack:negative': 'exploits drain value and confidence, hitting the affected token hardest',
  'depeg:negative': 'a stablecoin off its peg forces redemptions and spreads stress across the market',
  'depeg:positive': 'a restored peg eases the stress on the market',
  'withdrawals_halted:negative': 'frozen withdrawals signal a liquidity problem and trap funds',
  'withdrawals_halted:positive': 'reopened withdrawals ease fears about the platform',
  'insolvency:negative': 'an insolvency forces asset sales and freezes customer funds',
  'insolvency:positive': 'repayments return funds to creditors and remove an overhang',
  'regulation:negative':
    'bans, charges and securities treatment are the most negative regulatory news for prices',
  'regulation:positive': 'clearer legal treatment removes a risk that weighs on prices',
  'etf:positive': 'ETF filings, approvals and inflows bring demand from traditional investors',
  'etf:negative': 'ETF rejections, delays and outflows remove expected demand',
  'partnership:positive': 'a partnership with a known firm can add users and demand, usually a small effect',
  'partnership:negative': 'a denied partnership removes demand traders had priced in',
  'adoption:positive': 'large buyers and real-world use add lasting demand',
  'adoption:negative': 'a large holder selling or a use case ending adds supply',
  'upgrade:positive': 'a shipped upgrade improves the network, usually a modest effect',
  'upgrade:negative': 'a delayed upgrade pushes back the improvements holders expect',
  'outage:negative': 'a halted network hurts confidence in its reliability',
  'outage:positive': 'the network is running again, which eases the sell pressure',
  'unlock:negative': 'newly unlocked tokens add selling supply',
  'unlock:positive': 'a postponed or slower unlock keeps supply off the market',
  'buyback_burn:positive': 'buybacks and burns reduce the circulating supply',
  'buyback_burn:negative': 'paused burns leave more supply on the market',
  'fundraise:positive': "fresh funding extends the project's runway",
  'macro:positive': 'easier money and cooler inflation tend to lift risk assets like crypto',
  'macro:negative': 'tighter money and hot inflation weigh on risk assets like crypto',
  'liquidation:positive': 'forced short covering adds buying pressure',
  'liquidation:negative': 'forced selling of longs can cascade lower',
  'whale_transfer:positive': 'coins leaving exchanges suggest holding rather than selling',
  'whale_transfer:negative': 'coins sent to an exchange are often about to be sold',
  'price:positive': 'the rise itself draws momentum buyers',
  'price:negative': 'the fall itself can draw further selling',
};

function listAssets(assets: readonly string[]): string {
  if (assets.length === 0) return 'the crypto market';
  if (assets.length === 1) return assets[0] ?? '';
  const shown = assets.slice(0, 4);
  const more = assets.length > 4 ? ` and ${assets.length - 4} more` : '';
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}${more}`;
}

/** The key phrase, quoted, without anything that would end the sentence early. */
function quote(phrase: string): string {
  const clean = phrase
    .replace(/["“”]/g, "'")
    .replace(/[.!?]+(\s|$)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 60);
  return clean === '' ? '' : ` ("${clean}")`;
}

export function buildReasoning(
  event: EventMatch,
  sentiment: Sentiment,
  assets: readonly string[],
  authority: Authority,
): string {
  const subject = `${LABEL[event.type]}${quote(event.phrase)} for ${listAssets(assets)}`;
  let why: string;
  if (event.denied) why = 'the report is denied, so the expected move does not apply';
  else if (sentiment === 'neutral')
    why =
      event.type === 'other'
        ? 'chatter or routine news with no clear direction for the price'
        : 'no clear direction for the price';
  else
    why =
      WHY[`${event.type}:${sentiment}`] ??
      (sentiment === 'positive' ? 'it reads as good news for holders' : 'it reads as bad news for holders');
  const qualifier = event.hedged
    ? ', though it is unconfirmed'
    : authority === 'exchange' && sentiment !== 'neutral'
      ? ', and it comes from the exchange itself'
      : '';
  return `${subject}: ${why}${qualifier}.`;
}
