/** The bounds of an impact slider: 0-100 for the feed's filter, 50-95 for the alert threshold. */
export interface ImpactRange {
  readonly min: number;
  readonly max: number;
  readonly step: number;
}

interface ImpactSliderProps {
  /** Shown beside the slider and its accessible name. */
  label: string;
  range: ImpactRange;
  value: number;
  onChange: (value: number) => void;
  /** The label's class, which places it in its pane. */
  className: string;
  /** The test id of the value shown after the slider. */
  valueTestId: string;
}

/** An impact slider with its label and the value it is set to. */
export function ImpactSlider({ label, range, value, onChange, className, valueTestId }: ImpactSliderProps) {
  return (
    <label className={className}>
      <span>{label}</span>
      <input
        type="range"
        min={range.min}
        max={range.max}
        step={range.step}
        value={value}
        aria-label={label}
        onChange={(event) => onChange(Number(event.target.value))}
      />
      <output data-testid={valueTestId}>{value}</output>
    </label>
  );
}
