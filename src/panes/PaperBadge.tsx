import { TRADING_TEXT } from '../services/trading/messages';

/** Marks every place orders are sent from while they go to the paper exchange, not a live account. */
export function PaperBadge() {
  return (
    <span
      className="paper-badge"
      data-testid="paper-badge"
      title="Paper trading: orders fill on the built-in paper exchange with simulated funds."
    >
      {TRADING_TEXT.paperBadge}
    </span>
  );
}
