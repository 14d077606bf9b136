import { useSignals } from '@preact/signals-react/runtime';
import { SCORE_HORIZONS, type ScoreGroup, type ScoreHorizon } from '../contracts/scorecard';
import { useServices } from '../app/AppContext';
import { priceNote, type Bar } from '../services/scorecard/scorecard';
import { rowsAt, summaryText } from '../services/scorecard/view';
import { Dialog } from './Dialog';
import './ScorecardModal.css';

/** Horizontal bars of hit rate; the figures are text beside each bar, so the chart reads without it. */
function HitBars({ bars, name }: { bars: readonly Bar[]; name: string }) {
  if (bars.length === 0) return <p className="muted">Nothing measured yet.</p>;
  return (
    <ul className="score-bars" aria-label={name}>
      {bars.map((b) => (
        <li key={b.key} className="score-bar" data-testid="score-bar" data-key={b.key}>
          <span className="score-bar-label" title={b.key}>
            {b.key}
          </span>
          <span className="score-bar-track" aria-hidden="true">
            <span className="score-bar-fill" style={{ width: `${b.percent}%` }} />
          </span>
          <span className="score-bar-value">
            {b.rate} <span className="muted">of {b.directional}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The signal scorecard: how often the price followed the sentiment 1, 5 or 30 minutes after arrival, by
 * impact band and by source, and the mean move by sentiment. Opened by the `scorecard` command.
 */
/** Figures of a few groups at one horizon: signals, moves, hit rate, mean move. */
function GroupTable(props: {
  label: string;
  groups: readonly ScoreGroup[];
  horizon: ScoreHorizon;
  testId: string;
}) {
  return (
    <table className="scorecard-table" data-testid={props.testId}>
      <thead>
        <tr>
          <th scope="col">{props.label}</th>
          <th scope="col">Signals</th>
          <th scope="col">Moves</th>
          <th scope="col">Hit rate</th>
          <th scope="col">Mean move</th>
        </tr>
      </thead>
      <tbody>
        {rowsAt(props.groups, props.horizon).map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.key}</th>
            <td>{r.signals}</td>
            <td>{r.moves}</td>
            <td>{r.hit}</td>
            <td className={`move ${r.tone}`}>{r.move}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ScorecardModal() {
  useSignals();
  const { stores } = useServices();
  const sc = stores.scorecard;
  if (!sc.modalOpen.value) return null;
  const card = sc.card.value;
  const horizon = sc.horizon.value;
  const bars = sc.bars.value;
  const close = (): void => sc.closeModal();
  return (
    <Dialog label="Signal scorecard" className="scorecard-modal" onClose={close} testId="scorecard-modal">
      <h2>Signal scorecard</h2>
      {card === null ? null : (
        <p className="scorecard-summary" data-testid="scorecard-summary">
          {summaryText(card)}
          <span
            className={`scorecard-prices ${card.price_source}`}
            data-testid="scorecard-prices"
            title="Where the prices came from"
          >
            {priceNote(card)}
          </span>
        </p>
      )}
      {card?.note ? (
        <p className="scorecard-note" data-testid="scorecard-note" role="note">
          {card.note}
        </p>
      ) : null}
      {sc.loading.value ? <p className="muted">Loading the scorecard…</p> : null}
      {sc.error.value === null ? null : (
        <p className="form-error" role="alert">
          {sc.error.value}
        </p>
      )}
      <fieldset className="scorecard-horizons">
        <legend>After arrival</legend>
        {SCORE_HORIZONS.map((h) => (
          <label key={h} className={h === horizon ? 'chosen' : undefined}>
            <input
              type="radio"
              name="scorecard-horizon"
              value={h}
              checked={h === horizon}
              onChange={() => sc.chooseHorizon(h)}
            />
            {h}
          </label>
        ))}
      </fieldset>
      {card === null ? null : (
        <>
          <section aria-labelledby="scorecard-impact">
            <h3 id="scorecard-impact">Hit rate by impact band</h3>
            <HitBars bars={bars.byImpact} name="Hit rate by impact band" />
          </section>
          <section aria-labelledby="scorecard-source">
            <h3 id="scorecard-source">Hit rate by source</h3>
            <HitBars bars={bars.bySource} name="Hit rate by source" />
          </section>
          <section aria-labelledby="scorecard-sentiment">
            <h3 id="scorecard-sentiment">By sentiment</h3>
            <GroupTable
              label="Sentiment"
              groups={card.by_sentiment}
              horizon={horizon}
              testId="scorecard-sentiment"
            />
          </section>
          {card.by_retraction.some((g) => g.signals > 0) ? (
            <section aria-labelledby="scorecard-retraction">
              <h3 id="scorecard-retraction">Retracted stories and their retractions (not counted above)</h3>
              <GroupTable
                label="Role"
                groups={card.by_retraction}
                horizon={horizon}
                testId="scorecard-retraction"
              />
            </section>
          ) : null}
          <p className="scorecard-note">
            A hit is a price that moved the sentiment&apos;s way from arrival (positive: up, negative: down);
            the mean move is signed the same way. Neutral signals have no direction: their move is the mean
            size of the move.
          </p>
        </>
      )}
      <div className="form-actions">
        <button type="button" className="button" onClick={close}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
