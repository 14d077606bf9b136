import type { CalibrationPoint, CalibrationView } from '../contracts/calibration';
import { calibrationStatus } from '../services/scorecard/calibration';

const W = 168;
const H = 84;
const PAD = 4;

/** A type's points as an SVG path on the shared scale: score 0-100 across, move 0-`top` up. */
function pathOf(points: readonly CalibrationPoint[], top: number, pick: (p: CalibrationPoint) => number) {
  return points
    .map((p, i) => {
      const x = PAD + (p.score / 100) * (W - 2 * PAD);
      const y = H - PAD - (pick(p) / top) * (H - 2 * PAD);
      return `${i === 0 ? 'M' : 'L'}${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

/**
 * The admin panel's calibration: one small chart per event type with recorded signals, the move its
 * scores promised (dashed) against the move the market made (solid), or why calibration is off.
 */
export function CalibrationCharts({ view }: { view: CalibrationView }) {
  if (view.state === 'off') {
    return (
      <p className="muted" data-testid="calibration-off">
        {view.reason}
      </p>
    );
  }
  const shown = view.types.filter((t) => t.points.length > 0);
  return (
    <div className="admin-sources">
      <p className="muted">
        {view.fitted_at === null
          ? 'Not fitted yet: no recorded moves on Binance prices.'
          : `Fitted ${view.fitted_at.slice(0, 16).replace('T', ' ')} from moves ${(view.horizon_s ?? 0) / 60} min after arrival. Dashed: the move the score promised; solid: the move made. A type is calibrated from ${view.min_samples} signals.`}
      </p>
      <div className="calibration-grid">
        {shown.map((t) => {
          const all = [...t.points, ...t.probes];
          const top = Math.max(0.01, ...all.map((p) => Math.max(p.predicted_move, p.realised_move)));
          const points = [...t.points].sort((a, b) => a.score - b.score);
          return (
            <figure key={t.event_type} className="calibration-chart" data-testid="calibration-chart">
              <svg
                width={W}
                height={H}
                viewBox={`0 0 ${W} ${H}`}
                role="img"
                aria-label={`${t.event_type}: promised and realised move by score, up to ${top.toFixed(2)}%`}
              >
                <rect x={0.5} y={0.5} width={W - 1} height={H - 1} fill="none" stroke="var(--border)" />
                <path
                  d={pathOf(points, top, (p) => p.predicted_move)}
                  fill="none"
                  stroke="var(--text-dim)"
                  strokeDasharray="3 3"
                />
                <path d={pathOf(points, top, (p) => p.realised_move)} fill="none" stroke="var(--amber)" />
              </svg>
              <figcaption className="small">
                <strong>{t.event_type}</strong> · {t.samples} · {calibrationStatus(t, view.min_samples)}
              </figcaption>
            </figure>
          );
        })}
      </div>
      {shown.length === 0 && <p className="muted">No event type has recorded signals yet.</p>}
    </div>
  );
}
