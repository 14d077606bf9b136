import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_TEXTS, type CalibrationView } from '../contracts/calibration';
import { CalibrationCharts } from './CalibrationCharts';

afterEach(cleanup);

const point = (score: number, predicted: number, realised: number) => ({
  score,
  predicted_move: predicted,
  realised_move: realised,
});

const VIEW: CalibrationView = {
  state: 'on',
  min_samples: 50,
  fitted_at: '2026-03-01T04:00:00.000Z',
  horizon_s: 1800,
  ratio: 0.2,
  types: [
    {
      event_type: 'listing',
      samples: 64,
      active: true,
      probes: [point(20, 0.1, 0.3), point(50, 0.6, 1.8), point(80, 1.5, 4)],
      points: [point(40, 0.4, 1), point(80, 1.5, 4)],
    },
    {
      event_type: 'partnership',
      samples: 12,
      active: false,
      probes: [point(20, 0.1, 0.02), point(50, 0.6, 0.05), point(80, 1.5, 0.05)],
      points: [point(30, 0.2, 0.02)],
    },
    { event_type: 'etf', samples: 0, active: false, probes: [], points: [] },
  ],
};

describe('CalibrationCharts', () => {
  it('draws one small chart per event type with recorded signals, promised against made', () => {
    render(<CalibrationCharts view={VIEW} />);
    const charts = screen.getAllByTestId('calibration-chart');
    expect(charts.map((c) => c.querySelector('figcaption')?.textContent)).toEqual([
      'listing · 64 · active',
      'partnership · 12 · needs 38 more',
    ]);
    // Scaled to the largest move (4%): the realised line of listings reaches the top at score 80.
    const realised = charts[0]?.querySelectorAll('path')[1]?.getAttribute('d');
    expect(realised).toBe('M98.8,70.0 L163.6,4.0');
    expect(screen.getByRole('img', { name: /^listing: promised and realised move by score, up to 4\.00%$/ }));
  });

  it('says why calibration is off instead of drawing anything', () => {
    render(
      <CalibrationCharts
        view={{
          state: 'off',
          reason: CALIBRATION_TEXTS.simulated,
          min_samples: 50,
          fitted_at: null,
          horizon_s: null,
          ratio: null,
          types: [],
        }}
      />,
    );
    expect(screen.getByTestId('calibration-off').textContent).toBe(CALIBRATION_TEXTS.simulated);
    expect(screen.queryAllByTestId('calibration-chart')).toEqual([]);
  });
});
