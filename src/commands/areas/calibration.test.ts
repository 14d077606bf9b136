import { describe, expect, it } from 'vitest';
import { CALIBRATION_TEXTS, type CalibrationView } from '../../contracts/calibration';
import { createTestConsole } from '../testing/scripted';

const point = (score: number, predicted: number, realised: number) => ({
  score,
  predicted_move: predicted,
  realised_move: realised,
});

const ON: CalibrationView = {
  state: 'on',
  min_samples: 50,
  fitted_at: '2026-03-01T04:00:00.000Z',
  horizon_s: 1800,
  ratio: 0.21,
  types: [
    {
      event_type: 'listing',
      samples: 64,
      active: true,
      probes: [point(20, 0.16, 0.4), point(50, 0.63, 1.9), point(80, 1.5, 4.25)],
      points: [point(45, 0.55, 1.2), point(80, 1.5, 4.25)],
    },
    {
      event_type: 'partnership',
      samples: 12,
      active: false,
      probes: [point(20, 0.16, 0.02), point(50, 0.63, 0.05), point(80, 1.5, 0.05)],
      points: [point(30, 0.3, 0.02), point(50, 0.63, 0.05)],
    },
    { event_type: 'etf', samples: 0, active: false, probes: [], points: [] },
  ],
};

function session(view: CalibrationView, token: string | null = 'tok') {
  const s = createTestConsole({ token });
  s.server.on('GET /analysis/calibration', () => ({ status: 200, body: view }));
  return s;
}

describe('analysis calibration command', () => {
  it('prints one line per event type: samples, active or how many more, and the curve at 20/50/80', async () => {
    const out = await session(ON).type('analysis calibration');
    expect(out[0]).toBe(
      "info: Impact calibration, fitted 2026-03-01T04:00:00.000Z: moves 30 min after arrival, ratio 0.21 of the day's move. An event type is calibrated from 50 signals.",
    );
    expect(out[1]).toMatch(/^muted: EVENT\s+N\s+STATE\s+AT SCORE: PROMISED → MADE$/);
    expect(out.slice(2)).toEqual([
      'info: listing               64  active         20: 0.16% → 0.40%  50: 0.63% → 1.9%  80: 1.5% → 4.3%',
      'muted: partnership           12  needs 38 more  20: 0.16% → 0.02%  50: 0.63% → 0.05%  80: 1.5% → 0.05%',
      'muted: etf                    0  needs 50 more  20: —  50: —  80: —',
    ]);
  });

  it('says why it is off on simulated prices', async () => {
    const off: CalibrationView = {
      state: 'off',
      reason: CALIBRATION_TEXTS.simulated,
      min_samples: 50,
      fitted_at: null,
      horizon_s: null,
      ratio: null,
      types: [],
    };
    expect(await session(off).type('analysis calibration')).toEqual([
      'info: Impact calibration is off. Prices are simulated: their moves say nothing about the news, so impact is not calibrated.',
    ]);
  });

  it('says when nothing is fitted yet, and asks a guest to log in', async () => {
    const out = await session({ ...ON, fitted_at: null, ratio: null, horizon_s: null }).type(
      'analysis calibration',
    );
    expect(out[0]).toBe('info: Impact calibration: not fitted yet (no recorded moves on Binance prices).');
    const guest = session(ON, null);
    expect(await guest.type('analysis calibration')).toEqual(['error: You must be logged in.']);
    expect(guest.server.requests).toEqual([]);
  });
});
