import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALIBRATION_TEXTS, CalibrationView } from '../../src/contracts/calibration';
import { IngestResponse, SignalList, type Signal } from '../../src/contracts/signals';
import { buildApp } from '../../server/app';
import { impactCalibrations, signalScores } from '../../server/db/schema/scorecard';
import { MemoryBus } from '../../server/plugins/bus/memory';
import { CalibrationRepo } from '../../server/modules/scorecard/calibration.repo';
import { calibratedScore } from '../../server/modules/scorecard/impact-curve';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { marketOutcomes, rowsOf, seeded, series } from './calibration.support';
import { TOKEN, ingest, item } from './news.support';

const MIN = 20;
const LISTING = 'Binance will list Solana (SOL) perpetual contracts';

async function view(app: FastifyInstance, authorization: string): Promise<CalibrationView> {
  const res = await app.inject({
    method: 'GET',
    url: '/api/analysis/calibration',
    headers: { authorization },
  });
  expect(res.statusCode, res.body).toBe(200);
  return CalibrationView.parse(res.json());
}

async function analysed(t: Pick<TestApp, 'app' | 'api'>, content: string): Promise<Signal> {
  const id = IngestResponse.parse((await ingest(t.app, item(content))).json()).results[0]?.id;
  await t.api.news.drain();
  const listed = SignalList.parse((await t.app.inject('/api/signals?limit=20')).json());
  const signal = listed.find((s) => s.id === id);
  if (signal === undefined) throw new Error('signal not listed');
  return signal;
}

describe.each(dbTargets())('impact calibration on Binance prices (%s)', (name) => {
  const target = useDatabase(name);
  const outcomes = marketOutcomes();
  let double: BinanceDouble;
  let t: TestApp;
  let auth: { authorization: string };

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 97_000, SOLUSDT: 187, ETHUSDT: 3_400 });
    t = await startTestApp(seeded(target, rowsOf(outcomes, 'binance', Date.now())), {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
      IMPACT_CALIBRATION_MIN_SAMPLES: String(MIN),
    });
    auth = await signUpAndLogIn(t.app, 'calibrator');
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('fits each event type at start from the recorded moves of its primary asset', async () => {
    const rows = await t.database.db.select().from(impactCalibrations);
    const byType = Object.fromEntries(rows.map((r) => [r.eventType, r]));
    expect(Object.keys(byType).sort()).toEqual(['hack', 'listing', 'partnership']);
    expect(byType.listing?.sampleCount).toBe(60);
    expect(byType.partnership?.sampleCount).toBe(60);
    expect(byType.hack?.sampleCount).toBe(8);
    expect(new Set(rows.map((r) => r.fittedAt.getTime())).size).toBe(1);
    expect(new Set(rows.map((r) => r.ratio)).size).toBe(1);
    expect(rows.every((r) => r.priceSource === 'binance' && r.horizonS === 1800)).toBe(true);
    for (const r of rows) {
      for (let i = 1; i < r.points.length; i++) {
        expect(r.points[i]![0]).toBeGreaterThan(r.points[i - 1]![0]);
        expect(r.points[i]![1]).toBeGreaterThanOrEqual(r.points[i - 1]![1]);
      }
    }
    // The other asset's 50% moves are no sample: the largest fitted move is the listings' own.
    const largest = Math.max(...outcomes.map((o) => o.move));
    expect(Math.max(...rows.flatMap((r) => r.points.map((p) => p[1])))).toBeLessThanOrEqual(largest + 1e-6);
  });

  it('raises what moved more than its score said, lowers what moved less, leaves the few as they were', async () => {
    const fit = await new CalibrationRepo(t.database.db).latest('binance');
    if (fit === null) throw new Error('no fit stored');
    const listing = calibratedScore(fit, MIN, 'listing', 60);
    const partnership = calibratedScore(fit, MIN, 'partnership', 40);
    expect(listing).toBeGreaterThan(60);
    expect(partnership).toBeLessThan(40);
    expect(calibratedScore(fit, MIN, 'hack', 60)).toBeNull();
    expect(calibratedScore(fit, MIN, 'etf', 60)).toBeNull();
    // Monotone in the raw score.
    const scores = [40, 50, 60, 70, 80].map((s) => calibratedScore(fit, MIN, 'listing', s) ?? -1);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
  });

  it('scores a new listing with the calibration and keeps the analyzer’s score beside it', async () => {
    const signal = await analysed(t, LISTING);
    expect(signal.event_type).toBe('listing');
    if (signal.analysis.status !== 'completed') throw new Error('not completed');
    const raw = signal.analysis.impact_raw;
    expect(raw).toBeDefined();
    expect(signal.analysis.impact_score).toBeGreaterThan(raw ?? 100);
  });

  it('shows each type’s curve to a signed-in user, and to nobody else', async () => {
    const answer = await view(t.app, auth.authorization);
    expect(answer.state).toBe('on');
    expect(answer.reason).toBeUndefined();
    expect(answer.min_samples).toBe(MIN);
    expect(answer.horizon_s).toBe(1800);
    expect(answer.ratio).toBeGreaterThan(0);
    expect(answer.fitted_at).not.toBeNull();
    const of = (type: string) => answer.types.find((x) => x.event_type === type);
    expect(of('listing')).toMatchObject({ samples: 60, active: true });
    expect(of('hack')).toMatchObject({ samples: 8, active: false });
    expect(of('etf')).toMatchObject({ samples: 0, active: false, points: [], probes: [] });
    const at80 = of('listing')?.probes.find((p) => p.score === 80);
    expect(at80?.realised_move).toBeGreaterThan(at80?.predicted_move ?? Infinity);
    const p50 = of('partnership')?.probes.find((p) => p.score === 50);
    expect(p50?.realised_move).toBeLessThan(p50?.predicted_move ?? 0);

    const anonymous = await t.app.inject({ method: 'GET', url: '/api/analysis/calibration' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('fits once when two more processes start with no fit stored, and each applies the next fit announced', async () => {
    await t.database.db.delete(impactCalibrations);
    const bus = new MemoryBus();
    const announced: string[] = [];
    bus.subscribe('impact.calibrated', (e) => {
      announced.push(e.fittedAt);
    });
    const nodes = await Promise.all(
      [0, 1].map(async () => {
        let api: FastifyInstance | undefined;
        const app = await buildApp(t.config, {
          logger: false,
          database: t.database,
          bus,
          onApi: (scope) => (api = scope),
        });
        await app.ready();
        if (api === undefined) throw new Error('no /api scope');
        return { app, api };
      }),
    );
    try {
      await new Promise((r) => setTimeout(r, 50));
      expect(announced).toHaveLength(1);
      const rows = await t.database.db.select().from(impactCalibrations);
      expect(rows).toHaveLength(3);
      expect(rows.every((r) => r.fittedAt.toISOString() === announced[0])).toBe(true);
      // Both score with it: the one that fitted, and the other from the announcement.
      const listings = [
        'Upbit will list Aptos (APT) for KRW trading',
        'Coinbase will list Render (RENDER) spot trading',
      ];
      for (const [i, node] of nodes.entries()) {
        expect((await view(node.app, auth.authorization)).fitted_at).toBe(announced[0]);
        const signal = await analysed(node, listings[i] ?? '');
        if (signal.analysis.status !== 'completed') throw new Error('not completed');
        expect(signal.analysis.impact_raw).toBeDefined();
      }
      // A later fit on one reaches the other through the bus: adoptions, now recorded enough, count.
      const adoptions = series('adoption', MIN, 20, 70, 0.5);
      await t.database.db.insert(signalScores).values(rowsOf(adoptions, 'binance', Date.now(), 80_000));
      await nodes[0]?.api.impactCalibration.refit(0);
      await vi.waitFor(() => expect(announced).toHaveLength(2));
      await vi.waitFor(() =>
        expect(nodes[1]?.api.impactCalibration.applied?.toISOString()).toBe(announced[1]),
      );
      const adoption = await analysed(nodes[1]!, 'Solana announces partnership with Visa for payments');
      expect(adoption.event_type).toBe('adoption');
      if (adoption.analysis.status !== 'completed') throw new Error('not completed');
      expect(adoption.analysis.impact_raw).toBeDefined();
    } finally {
      await Promise.all(nodes.map((node) => node.app.close()));
    }
  });
});

describe('impact calibration on the simulator', () => {
  const target = useDatabase('pglite');
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(seeded(target, rowsOf(marketOutcomes(), 'sim', Date.now())), {
      MARKET_SOURCE: 'sim',
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
      IMPACT_CALIBRATION_MIN_SAMPLES: String(MIN),
    });
  });
  afterAll(() => t?.close());

  it('stays off and says why: no fit stored, none applied, the analyzer’s scores stand', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'simmer');
    const answer = await view(t.app, authorization);
    expect(answer).toEqual({
      state: 'off',
      reason: CALIBRATION_TEXTS.simulated,
      min_samples: MIN,
      fitted_at: null,
      horizon_s: null,
      ratio: null,
      types: [],
    });
    expect(await t.database.db.select().from(impactCalibrations)).toEqual([]);
    expect(await t.api.impactCalibration.refit(Number.POSITIVE_INFINITY)).toBeNull();
    const signal = await analysed(t, LISTING);
    if (signal.analysis.status !== 'completed') throw new Error('not completed');
    expect(signal.analysis.impact_raw).toBeUndefined();
  });
});
