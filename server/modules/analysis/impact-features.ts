import { EventType } from '../../../src/contracts/analysis';
import type { Authority, ImpactInput } from './impact';
import { RANK, expectedMove, moveToScore, venueFactor } from './impact';
import {
  ALL_TIME_HIGH,
  DELISTING_MINOR,
  ETF_DECISION,
  ETF_HOLDINGS,
  FOUNDER,
  HACK_MINOR,
  INSOLVENCY_CORE,
  INSOLVENCY_TAIL,
  LISTING_FULL,
  LISTING_MINOR,
  MACRO_SURPRISE,
  MARKET_WIDE,
  NOT_PRICE,
  PENALTY,
  PERP_ONLY,
  PERSONAL_CASE,
  PRICE_MOVE,
  RECORD,
  REGULATOR_DECISION,
  ROADMAP,
  SCHEDULED,
  SPOT,
  STABLECOIN,
  STATE_RESERVE,
  SUB_DOLLAR,
  TOP_VENUE,
} from './impact-cues';
import { largestUsdAmount, signedPercents } from './normalize';

/**
 * The impact model's columns for one item: what the event detector found (type, direction, hedge,
 * denial, delay), the source's authority, the primary asset's rank, the amounts and stated moves, the
 * venue, and the cues of `impact-cues.ts`. The last column is the rule-based estimate of the expected
 * move on the labelling scale, so the trees learn where the rules were wrong rather than relearning
 * what they already say.
 */
const AUTHORITIES: readonly Authority[] = ['exchange', 'outlet', 'data', 'social', 'unknown'];

const CUES: readonly (readonly [string, RegExp])[] = [
  ['listing_minor', LISTING_MINOR],
  ['listing_full', LISTING_FULL],
  ['roadmap', ROADMAP],
  ['scheduled', SCHEDULED],
  ['hack_minor', HACK_MINOR],
  ['penalty', PENALTY],
  ['etf_holdings', ETF_HOLDINGS],
  ['delisting_minor', DELISTING_MINOR],
  ['insolvency_core', INSOLVENCY_CORE],
  ['insolvency_tail', INSOLVENCY_TAIL],
  ['not_price', NOT_PRICE],
  ['perp_only', PERP_ONLY],
  ['spot', SPOT],
  ['regulator_decision', REGULATOR_DECISION],
  ['etf_decision', ETF_DECISION],
  ['macro_surprise', MACRO_SURPRISE],
  ['record', RECORD],
  ['market_wide', MARKET_WIDE],
  ['all_time_high', ALL_TIME_HIGH],
  ['founder', FOUNDER],
  ['personal_case', PERSONAL_CASE],
  ['state_reserve', STATE_RESERVE],
  ['top_venue', TOP_VENUE],
  ['stablecoin', STABLECOIN],
];

/**
 * The kinds of news docs/labelling.md §3 puts in the high band whatever the coin's size, each read from
 * the event and the cues: the trees learn how far each lifts an item rather than being told.
 */
const HIGH_KINDS: readonly (readonly [string, (input: ImpactInput, rank: number) => boolean])[] = [
  [
    'top_venue_failure',
    ({ event, lower }) =>
      ['hack', 'insolvency', 'withdrawals_halted'].includes(event.type) &&
      TOP_VENUE.test(lower) &&
      !SCHEDULED.test(lower),
  ],
  ['large_hack', ({ event, text }) => event.type === 'hack' && largestUsdAmount(text) >= 100e6],
  [
    'decision',
    ({ event, lower }) =>
      (event.type === 'regulation' && REGULATOR_DECISION.test(lower)) ||
      (event.type === 'etf' && ETF_DECISION.test(lower)),
  ],
  [
    'depeg',
    ({ event, lower }) => event.type === 'depeg' || (STABLECOIN.test(lower) && SUB_DOLLAR.test(lower)),
  ],
  ['founder_case', ({ lower }) => FOUNDER.test(lower) && PERSONAL_CASE.test(lower)],
  ['state_reserve', ({ lower }) => STATE_RESERVE.test(lower)],
  ['record_high', ({ lower }, rank) => ALL_TIME_HIGH.test(lower) && rank < 2],
  [
    'major_spot_listing',
    ({ event, lower, authority, source }, rank) =>
      event.type === 'listing' &&
      rank >= 10 &&
      venueFactor(authority === 'exchange' ? `${lower} ${source ?? ''}` : lower) > 1 &&
      !(PERP_ONLY.test(lower) && !SPOT.test(lower)) &&
      !LISTING_MINOR.test(lower),
  ],
];

export const IMPACT_FEATURES: readonly string[] = [
  ...EventType.options.map((t) => `type:${t}`),
  'dir',
  'confident',
  'hedged',
  'denied',
  'delayed',
  ...AUTHORITIES.map((a) => `authority:${a}`),
  'asset_none',
  'asset_log_rank',
  'asset_count',
  'usd_log10',
  'stated_move',
  'venue',
  'peg_gap',
  'question',
  'words',
  ...CUES.map(([name]) => `cue:${name}`),
  ...HIGH_KINDS.map(([name]) => `kind:${name}`),
  'rules_estimate',
];

/** The columns of one item, in the order of `IMPACT_FEATURES`. */
export function impactFeatures(input: ImpactInput): Float64Array {
  const { event, lower, text, asset, assetCount, authority, source } = input;
  const x = new Float64Array(IMPACT_FEATURES.length);
  let i = 0;
  for (const t of EventType.options) x[i++] = event.type === t ? 1 : 0;
  x[i++] = event.dir;
  x[i++] = event.confident ? 1 : 0;
  x[i++] = event.hedged ? 1 : 0;
  x[i++] = event.denied ? 1 : 0;
  x[i++] = event.delayed ? 1 : 0;
  for (const a of AUTHORITIES) x[i++] = authority === a ? 1 : 0;
  x[i++] = asset === null ? 1 : 0;
  x[i++] = asset === null ? 0 : Math.log10((RANK.get(asset) ?? 200) + 1);
  x[i++] = assetCount;
  const usd = largestUsdAmount(text);
  x[i++] = usd > 0 ? Math.log10(usd) : 0;
  const pcts =
    event.type === 'price'
      ? signedPercents(lower).map(Math.abs)
      : [...lower.matchAll(PRICE_MOVE)].map((m) => Number(m[1]));
  x[i++] = Math.min(60, Math.max(0, ...pcts));
  x[i++] = venueFactor(authority === 'exchange' ? `${lower} ${source ?? ''}` : lower);
  const peg = SUB_DOLLAR.exec(lower);
  x[i++] = peg === null ? 0 : 100 - Number(peg[1]);
  x[i++] = lower.includes('?') ? 1 : 0;
  let words = 1;
  for (let c = 0; c < lower.length; c++) if (lower.charCodeAt(c) === 32) words += 1;
  x[i++] = words;
  for (const [, re] of CUES) x[i++] = re.test(lower) ? 1 : 0;
  const rank = asset === null ? 200 : (RANK.get(asset) ?? 200);
  for (const [, is] of HIGH_KINDS) x[i++] = is(input, rank) ? 1 : 0;
  x[i] = moveToScore(expectedMove(input));
  return x;
}
