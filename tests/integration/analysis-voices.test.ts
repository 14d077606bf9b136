import { describe, expect, it } from 'vitest';
import { loadSplit } from '../../server/modules/analysis/dataset';
import { figuresOf, gapRows, type Figures } from '../../server/modules/analysis/eval-figures';
import { createLocalAnalyzer } from '../../server/modules/analysis/local-analyzer';
import { largestUsdAmount } from '../../server/modules/analysis/normalize';

const analyzer = createLocalAnalyzer();
const one = (content: string, source_name = 'Reuters') => analyzer.analyze({ content, source_name });

describe('held-out set in other voices', () => {
  // data/voices.jsonl: wire copy, other venues' notices, capitals and cashtags, channel digests, alert
  // bots, regulators' and courts' wording, rumours, amounts written every way; never tuned on. The floors
  // are the goals for news written by others (0.911 / 0.958 / 0.976 / 0.987 / 61% when they were set).
  it('shares no item with any other split and meets the goals', () => {
    const items = loadSplit('voices');
    expect(items.length).toBeGreaterThanOrEqual(300);
    const known = new Set(
      (['train', 'dev', 'dev-voices', 'test', 'holdout', 'replay'] as const).flatMap((s) =>
        loadSplit(s).map((i) => i.text.toLowerCase()),
      ),
    );
    expect(items.filter((i) => known.has(i.text.toLowerCase()))).toEqual([]);
    const f = figuresOf(items, analyzer);
    expect(f.ours.accuracy).toBeGreaterThanOrEqual(0.85);
    for (const c of ['positive', 'negative', 'neutral'] as const)
      expect(f.ours.recall[c]).toBeGreaterThanOrEqual(0.8);
    expect(f.assets.precision).toBeGreaterThanOrEqual(0.95);
    expect(f.assets.recall).toBeGreaterThanOrEqual(0.9);
    expect(f.impactAuc).toBeGreaterThanOrEqual(0.9);
    expect(f.highAt80).toBeGreaterThanOrEqual(0.5);
    expect(f.lowAt80).toBeLessThanOrEqual(0.03);
  });

  it('keeps the tuning set in the same voices apart from every other split', () => {
    const tuning = loadSplit('dev-voices');
    expect(tuning.length).toBeGreaterThanOrEqual(150);
    const others = new Set(
      (['train', 'dev', 'test', 'holdout', 'replay'] as const).flatMap((s) =>
        loadSplit(s).map((i) => i.text.toLowerCase()),
      ),
    );
    expect(tuning.filter((i) => others.has(i.text.toLowerCase()))).toEqual([]);
  });
});

describe('gap between the held-out sets', () => {
  const figures = (accuracy: number, recall: number, highAt80: number) =>
    ({
      ours: { accuracy, macroF1: accuracy },
      assets: { precision: 1, recall },
      highAt80,
    }) as unknown as Figures;
  const baseline = { tolerance: 0.02, gap: { accuracy: 0, macro_f1: 0, asset_recall: 0, high_at_80: 0.2 } };

  it('flags a figure whose gap widened past the baseline and its tolerance, and only that one', () => {
    const rows = gapRows(figures(0.92, 0.97, 0.8), figures(0.88, 0.96, 0.62), baseline);
    expect(rows.map((r) => [r.figure, r.widened])).toEqual([
      ['accuracy', true],
      ['macro_f1', true],
      ['asset_recall', false],
      ['high_at_80', false],
    ]);
    expect(rows[0]?.gap).toBeCloseTo(0.04, 10);
    expect(rows[0]?.allowed).toBeCloseTo(0.02, 10);
  });

  it('passes a gap that narrowed or holds within the tolerance', () => {
    const rows = gapRows(figures(0.9, 0.96, 0.8), figures(0.91, 0.95, 0.59), baseline);
    expect(rows.every((r) => !r.widened)).toBe(true);
  });
});

describe('other voices', () => {
  it('reads regulators and courts in their own words', () => {
    // A decision on a major venue is the high band (docs/labelling.md §3); the same charge against a
    // platform nobody names is at least notable, and never above it.
    const charged = one(
      'The Securities and Exchange Commission today charged Coinbase with operating an unregistered exchange',
      'SEC.gov',
    );
    expect([charged.event_type, charged.sentiment]).toEqual(['regulation', 'negative']);
    expect(charged.impact_score).toBeGreaterThanOrEqual(80);
    const unnamed = one(
      'The Securities and Exchange Commission today charged a trading platform with operating an unregistered exchange',
      'SEC.gov',
    );
    expect(unnamed.sentiment).toBe('negative');
    expect(unnamed.impact_score).toBeGreaterThanOrEqual(50);
    expect(unnamed.impact_score).toBeLessThanOrEqual(charged.impact_score);
    const closed = one(
      'The Commission has concluded its investigation and does not intend to recommend enforcement action',
      'SEC.gov',
    );
    expect(closed.sentiment).toBe('positive');
    const motion = one(
      'The motion to dismiss is DENIED; the case against the token issuer proceeds',
      'Court',
    );
    expect(motion.sentiment).toBe('negative');
    const refused = one('SEC denies the application to list a spot litecoin ETF');
    expect([refused.event_type, refused.sentiment]).toEqual(['etf', 'negative']);
    expect(refused.impact_score).toBeGreaterThanOrEqual(80);
    const ban = one('Parliament bans crypto payments for goods and services from next year');
    expect([ban.event_type, ban.sentiment]).toEqual(['regulation', 'negative']);
  });

  it('reads ETF flows in any wording, and keeps flows below the alert threshold', () => {
    const inflow = one('Ether funds attract a record 2.1 bn dollars in a single week');
    expect([inflow.event_type, inflow.sentiment]).toEqual(['etf', 'positive']);
    expect(inflow.impact_score).toBeGreaterThanOrEqual(50);
    expect(inflow.impact_score).toBeLessThan(80);
    expect(one('Bitcoin ETFs hemorrhage $900 million over two days').sentiment).toBe('negative');
  });

  it('scores scheduled maintenance as background and a halt after an incident as an alert', () => {
    const scheduled = one(
      'Deposits and withdrawals on the Polygon network will be paused during the scheduled network upgrade',
      'Bitget',
    );
    expect(scheduled.sentiment).toBe('neutral');
    expect(scheduled.impact_score).toBeLessThan(50);
    const halted = one('Exchange halts all withdrawals after abnormal outflows from a hot wallet', 'HTX');
    expect(halted.sentiment).toBe('negative');
    expect(halted.impact_score).toBeGreaterThanOrEqual(80);
    expect(halted.impact_score - scheduled.impact_score).toBeGreaterThanOrEqual(40);
  });

  it('reads a hack and its size from alert-bot wording and any amount format', () => {
    const big = one('Lending market drained of 410,000,000 dollars in an oracle attack', 'PeckShieldAlert');
    const small = one('Tiny farm loses 95k dollars to a flash-loan attack', 'PeckShieldAlert');
    expect([big.event_type, small.event_type]).toEqual(['hack', 'hack']);
    expect(big.impact_score).toBeGreaterThan(small.impact_score + 30);
    expect(largestUsdAmount('losses of US$1.2 billion')).toBe(1.2e9);
    expect(largestUsdAmount('1,200,000,000 USD moved')).toBe(1.2e9);
    expect(largestUsdAmount('a 1.2 bn USD hole')).toBe(1.2e9);
    expect(largestUsdAmount('8.5m USDC taken')).toBe(8.5e6);
    expect(largestUsdAmount('€30 million stolen')).toBe(30e6);
    expect(largestUsdAmount('$410 mn drained')).toBe(410e6);
    expect(largestUsdAmount('¥9 billion of tokens')).toBe(0);
  });

  it('does not read stablecoin mints, burns and moves as a direction', () => {
    const mint = one('🚨 2,000,000,000 #USDT minted at Tether Treasury', 'Whale Alert');
    expect(mint.sentiment).toBe('neutral');
    // A mint is news about the stablecoin's supply: tagged, and shown without a trade.
    expect(mint.assets).toEqual(['USDT']);
    expect(mint.asset_details).toEqual([{ symbol: 'USDT', tradable: false, stablecoin: true }]);
    expect(
      one('🚨 150,000,000 #USDC transferred from #Coinbase to unknown wallet', 'Whale Alert').sentiment,
    ).toBe('neutral');
  });
});

describe('implied assets and words that are tickers', () => {
  it('tags the token a network, company or product names', () => {
    expect(one('The Pectra upgrade is set for mainnet next month').assets).toEqual(['ETH']);
    expect(one('Firedancer now validates a tenth of stake').assets).toEqual(['SOL']);
    expect(one('Ripple wins a licence in Japan').assets).toEqual(['XRP']);
    expect(one('Spot bitcoin ETF sees record volume').assets).toEqual(['BTC']);
    expect(one('Lightning Network capacity doubles in a year').assets).toEqual(['BTC']);
    expect(one('Tornado Cash developer convicted').assets).toEqual(['TORN']);
  });

  it('does not tag a ticker that is only a word, a time or a venue', () => {
    for (const text of [
      'one of the worst weeks this year',
      'gas fees near zero on mainnet',
      'near the highs again, careful',
      'the worst crash since FTX',
      'a yield vault on Arbitrum was exploited for $3M',
      'the exploiter swapped to ETH and went quiet',
    ])
      expect(one(text, 'X').assets).toEqual([]);
    expect(one('Arkham Alert: 2,000 BTC moved after 10 years', 'Arkham').assets).toEqual(['BTC']);
  });

  it('tags word-like symbols from an exchange notice, a pair or a perpetual contract', () => {
    expect(
      one('Binance Will Add the Monitoring Tag to HIGH and VIDT', 'Binance Announcements').assets,
    ).toEqual(['HIGH', 'VIDT']);
    expect(one('Trading of AERO-USD is now live', 'Coinbase Markets').assets).toEqual(['AERO']);
    expect(one('Gate Lists GOAT on Spot Market', 'Gate').assets).toEqual(['GOAT']);
  });
});
