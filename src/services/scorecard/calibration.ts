import { CALIBRATION_PROBES, CalibrationView, type CalibrationType } from '../../contracts/calibration';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { info, muted, type OutputLine } from '../terminal/output';

export type Loaded<T> = { ok: true; value: T } | { ok: false; message: string };

const FALLBACK = 'The impact calibration could not be loaded.';

/** `GET /analysis/calibration`: the calibration's state and each event type's curve. */
export async function loadCalibration(main: ApiClient): Promise<Loaded<CalibrationView>> {
  try {
    return { ok: true, value: await main.call(CalibrationView, '/analysis/calibration') };
  } catch (err) {
    return { ok: false, message: errorMessage(err, FALLBACK) };
  }
}

const pct = (n: number) => `${n < 1 ? n.toFixed(2) : n.toFixed(1)}%`;

/** "active", or how many more recorded signals the type needs before its scores follow the market. */
export function calibrationStatus(t: CalibrationType, minSamples: number): string {
  return t.active ? 'active' : `needs ${minSamples - t.samples} more`;
}

/** One event type: its samples, whether it is calibrated, and at 20/50/80 the move promised → made. */
export function calibrationLine(t: CalibrationType, minSamples: number): OutputLine {
  const probes = CALIBRATION_PROBES.map((score) => {
    const p = t.probes.find((x) => x.score === score);
    return `${score}: ${p === undefined ? '—' : `${pct(p.predicted_move)} → ${pct(p.realised_move)}`}`;
  });
  const line = `${t.event_type.padEnd(18)} ${String(t.samples).padStart(5)}  ${calibrationStatus(t, minSamples).padEnd(14)} ${probes.join('  ')}`;
  return t.active ? info(line) : muted(line);
}

/** The terminal's view: the off reason, or a head line and one line per event type. */
export function calibrationLines(view: CalibrationView): OutputLine[] {
  if (view.state === 'off') return [info(`Impact calibration is off. ${view.reason ?? ''}`.trim())];
  const head =
    view.fitted_at === null
      ? 'Impact calibration: not fitted yet (no recorded moves on Binance prices).'
      : `Impact calibration, fitted ${view.fitted_at}: moves ${(view.horizon_s ?? 0) / 60} min after arrival, ratio ${view.ratio ?? 0} of the day's move. An event type is calibrated from ${view.min_samples} signals.`;
  return [
    info(head),
    muted(`${'EVENT'.padEnd(18)} ${'N'.padStart(5)}  ${'STATE'.padEnd(14)} AT SCORE: PROMISED → MADE`),
    ...view.types.map((t) => calibrationLine(t, view.min_samples)),
  ];
}
