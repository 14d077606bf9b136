import { describe, expect, it } from 'vitest';
import { SCORECARD_TEXTS } from '../../contracts/scorecard';
import { makeScorecard, group } from '../../services/scorecard/testing/cards';
import { createTestConsole } from '../testing/scripted';

function session(card = makeScorecard()) {
  const s = createTestConsole();
  s.server.on('GET /signals/scorecard', () => ({ status: 200, body: card }));
  return s;
}

describe('scorecard command', () => {
  it('prints a compact table per grouping, with counts, and says the prices were simulated', async () => {
    const s = session();
    const out = await s.type('scorecard');
    expect(out[0]).toBe('info: Scorecard, last 7 days (simulated prices): 12 signals.');
    const impact = out.findIndex((l) => /IMPACT\s+N\s+1m\s+5m\s+30m$/.test(l));
    expect(impact).toBeGreaterThan(0);
    expect(out.slice(impact + 1, impact + 5)).toEqual([
      expect.stringMatching(/^info: all\s+12\s+67% \+0\.42%\s+67% \+0\.42%\s+50% -0\.10%$/),
      expect.stringMatching(/^info: 80\+\s+4\s+80% \+1\.50%\s+80% \+1\.50%\s+25% -0\.50%$/),
      expect.stringMatching(/^info: 50-79\s+5\s+60%/),
      expect.stringMatching(/^info: <50\s+3\s+50%/),
    ]);
    const sentiment = out.findIndex((l) => l.includes('SENTIMENT'));
    // Neutral signals have no hit rate: their cells give the mean size of the move.
    expect(out[sentiment + 3]).toMatch(/^info: neutral\s+2\s+— ±0\.31%\s+— ±0\.31%\s+— ±0\.31%$/);
    const source = out.findIndex((l) => l.includes('SOURCE'));
    expect(out.slice(source + 1).map((l) => /^info: (.+?)\s{2,}(\d+)/.exec(l)?.slice(1))).toEqual([
      ['Binance Annou…', '5'],
      ['Blockwire News', '4'],
      ['Whale Tracker', '3'],
    ]);
    expect(s.stores.scorecard.modalOpen.value).toBe(true);
    expect(s.stores.scorecard.card.value?.overall.signals).toBe(12);
  });

  it('says beside the figures that hit rates on simulated prices are chance', async () => {
    const s = session(makeScorecard({ note: SCORECARD_TEXTS.simulated }));
    const out = await s.type('scorecard');
    expect(out[1]).toBe(`info: ${SCORECARD_TEXTS.simulated}`);
    const real = await session(makeScorecard({ price_source: 'binance', note: null })).type('scorecard');
    expect(real.some((l) => l.includes('chance'))).toBe(false);
  });

  it('names real prices when the server has a market connection, and sends the window asked for', async () => {
    const s = session(makeScorecard({ price_source: 'binance' }));
    expect((await s.type('scorecard --days 30'))[0]).toContain('(Binance prices)');
    expect((await s.type('scorecard --since 2026-03-01T00:00:00Z'))[0]).toContain('Scorecard, ');
    expect(s.server.requests.map((r) => r.search)).toEqual(['?days=30', '?since=2026-03-01T00:00:00Z']);
    expect((await s.run('scorecard')).data).toMatchObject({ price_source: 'binance' });
  });

  it('prints retracted stories and their retractions apart, only when there are some', async () => {
    expect((await session().type('scorecard')).some((l) => l.includes('RETRACTION'))).toBe(false);
    const s = session(
      makeScorecard({
        by_retraction: [group('retracted', 2, [2, 2, 0, -3.1]), group('retraction', 2, [2, 2, 2, 2.4])],
      }),
    );
    const out = await s.type('scorecard');
    const at = out.findIndex((l) => /RETRACTION\s+N\s+1m/.test(l));
    expect(out[at - 1]).toBe(
      'muted: Retracted stories and their retractions, counted apart from the figures above:',
    );
    expect(out.slice(at + 1)).toEqual([
      expect.stringMatching(/^info: retracted\s+2\s+0% -3\.10%/),
      expect.stringMatching(/^info: retraction\s+2\s+100% \+2\.40%/),
    ]);
  });

  it('says when nothing has been measured yet', async () => {
    const s = session(
      makeScorecard({
        overall: group('all', 0, [0, 0, 0, null]),
        by_source: [],
        by_sentiment: [],
        by_impact: [],
      }),
    );
    expect(await s.type('scorecard')).toEqual([
      'info: Scorecard, last 7 days (simulated prices): 0 signals.',
      'muted: Nothing measured yet: prices are taken 1, 5 and 30 minutes after a signal arrives.',
    ]);
  });

  it('refuses a bad window before asking, and shows the server’s refusal', async () => {
    const s = session();
    expect(await s.type('scorecard --days 0')).toEqual([
      'error: The days are a whole number from 1 to 90.',
      'muted: Usage: scorecard',
    ]);
    expect(await s.type('scorecard --since yesterday')).toEqual([
      'error: Give the start as an ISO time, e.g. 2026-01-01T00:00:00Z.',
      'muted: Usage: scorecard',
    ]);
    expect(await s.type('scorecard --days 3 --since 2026-03-01T00:00:00Z')).toEqual([
      'error: Choose --days or --since, not both.',
    ]);
    expect(s.server.count('GET /signals/scorecard')).toBe(0);
    s.server.on('GET /signals/scorecard', () => ({ status: 503, body: { detail: 'Database is busy.' } }));
    expect(await s.type('scorecard')).toEqual(['error: Database is busy.']);
    expect(s.stores.scorecard.error.value).toBe('Database is busy.');
    s.server.on('GET /signals/scorecard', () => ({ status: 200, body: { price_source: 'sim' } }));
    expect(await s.type('scorecard')).toEqual(['error: Could not load the scorecard. Please try again.']);
  });
});
