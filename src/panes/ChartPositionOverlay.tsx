import type { ReadonlySignal } from '@preact/signals-core';
import { useSignals } from '@preact/signals-react/runtime';
import type { PositionChart } from '../services/trading/chartLines';
import type { ChartMover } from '../services/trading/chartMover';
import type { DeadlineMark, LineGrip } from './chartPositionLayer';
import './chartLines.css';

export interface ChartPositionOverlayProps {
  position: ReadonlySignal<PositionChart | null>;
  mover: ChartMover;
  marks: ReadonlySignal<readonly DeadlineMark[]>;
  grips: ReadonlySignal<readonly LineGrip[]>;
  /** True on a touch screen: the hint says to hold a line rather than drag it. */
  touch: boolean;
}

/** One deadline: a vertical line across the chart, or a tag on the right edge while it is ahead of view. */
function Mark({ mark }: { mark: DeadlineMark }) {
  return (
    <div
      className={`chart-deadline ${mark.kind}${mark.ahead ? ' ahead' : ''}`}
      data-testid="chart-deadline"
      data-kind={mark.kind}
      style={{ left: mark.x }}
      title={mark.label}
    >
      <span className="chart-deadline-label">
        {mark.label}
        {mark.ahead ? ' \u2192' : ''}
      </span>
    </div>
  );
}

/**
 * What the chart says of the position beside its lines: a legend (entry, each leg and where it rests,
 * the trailing stop, the deadlines), the deadlines across the time axis, the ghost's price while a line
 * is dragged, and the server's refusal of a move.
 */
export function ChartPositionOverlay({ position, mover, marks, grips, touch }: ChartPositionOverlayProps) {
  useSignals();
  const chart = position.value;
  const ghost = mover.ghost.value;
  const refusal = mover.refusal.value;
  if (chart === null) return null;
  const movable = chart.lines.some((l) => l.draggable);
  return (
    <>
      <ul
        className="chart-legend"
        data-testid="chart-position-lines"
        aria-label={`Position on ${chart.symbol}`}
      >
        {chart.lines.map((l) => (
          <li
            key={l.kind}
            className={`chart-legend-item ${l.kind}${l.kind === 'entry' ? ` ${chart.side}` : ''}${l.place === 'app' ? ' app' : ''}`}
            data-kind={l.kind}
            style={{ borderColor: l.color }}
          >
            {l.legend}
          </li>
        ))}
        {chart.notes.map((n) => (
          <li key={n} className="chart-legend-item note" data-kind="trail">
            {n}
          </li>
        ))}
        {marks.value.map((m) => (
          <li key={m.kind} className="chart-legend-item app" data-kind={m.kind}>
            {m.label}
          </li>
        ))}
      </ul>
      {marks.value.map((m) => (
        <Mark key={m.kind} mark={m} />
      ))}
      {ghost === null
        ? grips.value.map((g) => (
            <span
              key={g.kind}
              className="chart-grip"
              data-testid="chart-grip"
              data-kind={g.kind}
              aria-hidden="true"
              style={{ left: g.x, top: g.y, borderColor: g.color, color: g.color }}
            >
              {'\u21d5'}
            </span>
          ))
        : null}
      {movable && ghost === null && refusal === null ? (
        <span className="chart-drag-hint">
          {touch ? 'Hold a stop or target line to move it' : 'Drag a stop or target line to move it'}
        </span>
      ) : null}
      {ghost === null ? null : (
        <span className="chart-drag-ghost" data-testid="chart-drag-ghost" role="status">
          {ghost.text}
        </span>
      )}
      {refusal === null ? null : (
        <div className="chart-move-refused" role="alert" data-testid="chart-move-refused">
          <span>{refusal}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => mover.dismiss()}>
            ×
          </button>
        </div>
      )}
    </>
  );
}
