import { useState, type FormEvent } from 'react';
import type { LegView, ProtectionView } from '../services/trading/protectionView';
import { UNPROTECTED_TEXT } from '../services/trading/protectionView';
import type { ProtectionFields } from '../services/trading/protectionEditor';

/** One leg: `SL 98,000.0000`, a badge saying where it rests, and its state. */
function Leg({ leg }: { leg: LegView }) {
  return (
    <span
      className={`protection-leg ${leg.kind}${leg.state === null ? '' : ` ${leg.state}`}`}
      data-testid="protection-leg"
      data-kind={leg.kind}
    >
      <span className="protection-leg-name">{leg.label}</span> {leg.value}{' '}
      <span className={`protection-place ${leg.place}`} title={`Rests ${leg.placeText}`}>
        {leg.place}
      </span>
      {leg.stateText === null ? null : (
        <>
          {' '}
          <span className="protection-state">{leg.stateText}</span>
        </>
      )}
    </span>
  );
}

export interface ProtectionCellProps {
  symbol: string;
  view: ProtectionView;
  busy: boolean;
  onEdit(): void;
  onRemove(): void;
  onBreakEven(): void;
}

/** The PROTECTION cell of a position: its legs (or "unprotected") and the controls that change them. */
export function ProtectionCell({ symbol, view, busy, onEdit, onRemove, onBreakEven }: ProtectionCellProps) {
  const hasLegs = view.legs.length > 0;
  return (
    <div className="protection-cell" data-testid="protection">
      {view.unprotected ? (
        <span
          className="protection-unprotected"
          data-testid="unprotected"
          title="No stop loss or trailing stop is working"
        >
          {UNPROTECTED_TEXT}
        </span>
      ) : null}
      {view.legs.map((leg) => (
        <Leg key={leg.kind} leg={leg} />
      ))}
      <span className="protection-controls">
        <button
          type="button"
          className="icon-button"
          disabled={busy}
          aria-label={`Edit protection of ${symbol}`}
          title="Edit the stop loss, take profit, trailing stop and time exit"
          onClick={onEdit}
        >
          Edit
        </button>
        <button
          type="button"
          className="icon-button"
          disabled={busy}
          aria-label={`Move the stop of ${symbol} to break-even`}
          title="Move the stop to break-even"
          onClick={onBreakEven}
        >
          BE
        </button>
        {hasLegs ? (
          <button
            type="button"
            className="icon-button"
            disabled={busy}
            aria-label={`Remove protection of ${symbol}`}
            title="Remove the protection"
            onClick={onRemove}
          >
            ×
          </button>
        ) : null}
      </span>
    </div>
  );
}

export interface ProtectionFormProps {
  symbol: string;
  initial: ProtectionFields;
  busy: boolean;
  error: string | null;
  onSave(fields: ProtectionFields): void;
  onCancel(): void;
}

const FIELDS: readonly { key: keyof ProtectionFields; label: string; placeholder: string }[] = [
  { key: 'stopLoss', label: 'Stop loss', placeholder: '2% or 98000' },
  { key: 'takeProfit', label: 'Take profit', placeholder: '5% or 105000' },
  { key: 'trailing', label: 'Trailing %', placeholder: '1' },
  { key: 'exitAfter', label: 'Exit after', placeholder: '30m, 2h, 1d' },
];

/** The edit form under a row: what it holds is sent as the position's whole protection. */
export function ProtectionForm({ symbol, initial, busy, error, onSave, onCancel }: ProtectionFormProps) {
  const [fields, setFields] = useState(initial);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onSave(fields);
  };
  return (
    <form className="protection-form" aria-label={`Protection of ${symbol}`} onSubmit={submit}>
      {FIELDS.map(({ key, label, placeholder }) => (
        <label key={key} className="protection-field">
          <span>{label}</span>
          <input
            type="text"
            inputMode="decimal"
            value={fields[key]}
            placeholder={placeholder}
            disabled={busy}
            onChange={(event) => setFields({ ...fields, [key]: event.currentTarget.value })}
          />
        </label>
      ))}
      <button type="submit" className="button small" disabled={busy}>
        Save
      </button>
      <button type="button" className="button small" onClick={onCancel}>
        Cancel
      </button>
      {error === null ? null : (
        <p className="form-error" role="alert" data-testid="protection-error">
          {error}
        </p>
      )}
    </form>
  );
}
