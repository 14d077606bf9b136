import type { CalibrationPoint, CalibrationView } from '../contracts/calibration';
import { calibrationStatus } from '../services/scorecard/calibration';

const W = 200;
const H = 108;
/** Room for the move's labels on the left and the score's below. */
const LEFT = 34;
const BOTTOM = 16;
const PAD = 4;

const xOf = (score: number) => LEFT + (score / 100) * (W - LEFT - PAD);
const yOf = (move: number, top: number) => H - BOTTOM - (move / top) * (H - BOTTOM - PAD);

/** A type's points as an SVG path on the shared scale: score 0-100 across, move 0-`top` up. */
function pathOf(points: readonly CalibrationPoint[], top: number, pick: (p: CalibrationPoint) => number) {
  return points
    .map((p, i) => {
      const x = xOf(p.score);
      const y = yOf(pick(p), top);
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
          : `Fitted ${view.fitted_at.slice(0, 16).replace('T', ' ')} from moves ${(view.horizon_s ?? 0) / 60} min after arrival. Across: the raw score (0-100, dotted at the alert threshold 80); up: the move. Dashed: the move the score promised; solid: the move made. A type is calibrated from ${view.min_samples} signals.`}
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
                <rect
                  x={LEFT + 0.5}
                  y={PAD + 0.5}
                  width={W - LEFT - PAD - 1}
                  height={H - BOTTOM - PAD - 1}
                  fill="none"
                  stroke="var(--border)"
                />
                <g className="calibration-axis" fill="var(--text-dim)" fontSize="9">
                  <text x={LEFT - 3} y={PAD + 8} textAnchor="end">
                    {`${top.toFixed(top < 1 ? 2 : 1)}%`}
                  </text>
                  <text x={LEFT - 3} y={H - BOTTOM} textAnchor="end">
                    0%
                  </text>
                  {[0, 50, 100].map((score) => (
                    <text
                      key={score}
                      x={xOf(score)}
                      y={H - 4}
                      textAnchor={score === 0 ? 'start' : score === 100 ? 'end' : 'middle'}
                    >
                      {score}
                    </text>
                  ))}
                  <line
                    x1={xOf(80)}
                    x2={xOf(80)}
                    y1={PAD}
                    y2={H - BOTTOM}
                    stroke="var(--border)"
                    strokeDasharray="1 2"
                  />
                </g>
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
