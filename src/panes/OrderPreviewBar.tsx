import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import './trading.css';

/** The line under the command prompt: what Enter will do for the order being typed. */
export function OrderPreviewBar() {
  useSignals();
  const line = useServices().orderPreview.line.value;
  if (line.kind === 'none') return null;
  return (
    <div className={`order-preview ${line.kind}`} data-testid="order-preview" aria-live="polite">
      <span className="order-preview-key" aria-hidden="true">
        ⏎
      </span>
      {line.text}
    </div>
  );
}
