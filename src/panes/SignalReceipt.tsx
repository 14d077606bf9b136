import { ageLabel, stagesText } from '../services/feed/receipt';
import type { FeedSignal } from '../services/feed/types';
import './SignalReceipt.css';

/**
 * "published 1.2 s before it reached you" under a card whose source said when it published; on hover or
 * focus, each stage of its way here in ms.
 */
export function SignalReceipt({ signal }: { signal: FeedSignal }) {
  const label = ageLabel(signal);
  if (label === null) return null;
  const stages = stagesText(signal);
  return (
    <div className="card-receipt-row">
      <span className="card-receipt" tabIndex={0} data-testid="card-receipt">
        {label}
        <span className="card-receipt-text" role="tooltip" data-testid="card-receipt-stages">
          {stages}
        </span>
      </span>
    </div>
  );
}
