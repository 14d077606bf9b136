import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../analysis/analysis.service';
import { evaluateRetractions, loadRetractionCases } from './retraction-eval';
import { findRetracted, retractionCue, type RetractionCandidate } from './retraction';

describe('retractionCue', () => {
  const retractions: [string, string][] = [
    ['Kraken denies reports it will delist XRP', 'denial'],
    ['"This is not true," a Binance spokesperson said of the listing rumour', 'denial'],
    ['BlackRock: the iShares filing circulating today is fake', 'denial'],
    ['The company did not file for an ETF, it said', 'denial'],
    ['Tesla has no plans to accept DOGE', 'denial'],
    ['Exchange calls the delisting notice bogus', 'denial'],
    ['CORRECTION: the hack affected a test wallet, not user funds', 'correction'],
    ['An earlier version of this story wrongly stated that the fund bought ETH', 'correction'],
    ['We have retracted the article about the Ripple settlement', 'withdrawal'],
    ['The tweet has been deleted; please disregard', 'withdrawal'],
    ['Our Twitter account was hacked, do not click any links', 'compromised'],
    ['A compromised X account posted the ETF approval', 'compromised'],
    ['The post was unauthorized and did not come from us', 'compromised'],
  ];
  it.each(retractions)('reads a retraction: %s', (text, kind) => {
    expect(retractionCue(text)?.kind).toBe(kind);
  });

  const news = [
    'SEC denies Grayscale application for a spot Ether ETF',
    'Judge denies Do Kwon bail request',
    'Hackers drain $40M from Orbit bridge',
    'Bybit halts withdrawals of SOL for network upgrade',
    'Scammers promote fake ETH airdrop sites on YouTube',
    'Bitcoin climbs 5% as ETF inflows surge',
    'Coinbase lists PEPE perpetual futures',
    'Exchange withdrawals resume after maintenance',
  ];
  it.each(news)('reads no retraction in: %s', (text) => {
    expect(retractionCue(text)).toBeNull();
  });
});

describe('findRetracted', () => {
  const at = Date.parse('2026-01-09T21:00:00Z');
  const story = (
    id: number,
    content: string,
    assets: string[],
    minutesAgo: number,
    username: string | null = null,
  ) =>
    ({
      id,
      content,
      sourceName: 'Wire',
      username,
      assets,
      receivedAt: at - minutesAgo * 60_000,
    }) satisfies RetractionCandidate;
  const denial = {
    content: 'BlackRock says the XRP trust filing is fake',
    sourceName: 'Reuters',
    username: null,
    assets: ['XRP'],
    receivedAt: at,
    kind: 'denial' as const,
  };

  it('picks the story whose claim the retraction names, not another story of the coin', () => {
    const link = findRetracted(denial, [
      story(1, 'BlackRock files for an XRP trust in Delaware', ['XRP'], 40),
      story(2, 'XRP jumps 10% on heavy volume', ['XRP'], 10),
    ]);
    expect(link?.id).toBe(1);
  });

  it('needs more than the coin in common', () => {
    expect(findRetracted(denial, [story(2, 'XRP jumps 10% on heavy volume', ['XRP'], 10)])).toBeNull();
  });

  it('ignores stories of other assets, later ones and those older than the window', () => {
    expect(
      findRetracted(denial, [
        story(1, 'BlackRock files for a Solana trust in Delaware', ['SOL'], 40),
        story(2, 'BlackRock files for an XRP trust in Delaware', ['XRP'], -5),
        story(3, 'BlackRock files for an XRP trust in Delaware', ['XRP'], 25 * 60),
      ]),
    ).toBeNull();
  });

  it('links a hacked-account notice to the account’s own recent post', () => {
    const link = findRetracted(
      {
        content: 'Our account was compromised. Please ignore the last post.',
        sourceName: 'X',
        username: 'SolanaFndn',
        assets: [],
        receivedAt: at,
        kind: 'compromised',
      },
      [
        story(7, 'Solana Foundation launches $500M fund', ['SOL'], 10, 'SolanaFndn'),
        story(8, 'Fed holds rates', [], 5),
      ],
    );
    expect(link?.id).toBe(7);
  });
});

describe('the labelled sets', () => {
  const analyzer = createAnalyzer({
    ANALYZER: 'local',
    LLM_BASE_URL: undefined,
    LLM_API_KEY: undefined,
    LLM_MODEL: undefined,
  });

  it('links every case of the tuning set right', async () => {
    const f = await evaluateRetractions(loadRetractionCases('tune'), analyzer);
    expect(f.misses).toEqual([]);
  });

  it('keeps its precision and recall on the held-out set (never tuned on)', async () => {
    const f = await evaluateRetractions(loadRetractionCases('holdout'), analyzer);
    expect(f.cases).toBe(40);
    expect(f.precision).toBeGreaterThanOrEqual(0.9);
    expect(f.recall).toBeGreaterThanOrEqual(0.9);
  });
});
