import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { proposedOrder, proposedVenue, secondsLeft, type Proposal } from '../services/rules/proposals';
import { RecentToasts } from './RecentToasts';
import './Toasts.css';

/**
 * What happened on the user's behalf (a rule fired, closed or was held back), for a few seconds; a story
 * the user holds that a weaker source disputes, with its Close, until dismissed; and an ask rule's
 * proposals, each with its news, a countdown and Confirm / Reject, until it is answered; a card trade's
 * fill or refusal. Those that matter stay readable under "Recent".
 */
export function Toasts() {
  useSignals();
  const { toasts, proposals } = useServices();
  const shown = toasts.shown.value;
  const asked = proposals.shown.value;
  return (
    <div className="toasts">
      <div className="toasts-live" role="status" aria-live="polite" data-testid="toasts">
        {asked.map((p) => (
          <ProposalToast key={`p${p.id}`} proposal={p} now={proposals.now.value} />
        ))}
        {shown.map((toast) => (
          <div
            key={toast.id}
            className={`toast ${toast.tone}${toast.sticky ? ' sticky' : ''}`}
            data-testid="toast"
            data-tone={toast.tone}
          >
            <span className="toast-text">{toast.text}</span>
            {toast.action !== null && (
              <button type="button" className="toast-action" onClick={() => void toasts.act(toast.id)}>
                {toast.action.label}
              </button>
            )}
            <button
              type="button"
              className="toast-close"
              aria-label="Dismiss"
              onClick={() => toasts.dismiss(toast.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
      <RecentToasts />
    </div>
  );
}

/** One proposal: the order it would place, the news and its analysis, the time left, and the answer. */
function ProposalToast({ proposal: p, now }: { proposal: Proposal; now: number }) {
  const { proposals } = useServices();
  const [sent, setSent] = useState<'confirm' | 'reject' | null>(null);
  const d = p.decision;
  const left = secondsLeft(p, now);
  const answer = (yes: boolean) => {
    setSent(yes ? 'confirm' : 'reject');
    void proposals.answer(p.id, yes);
  };
  return (
    <div
      className={`toast proposal${p.closed === null ? '' : ' closed'}`}
      data-testid="proposal"
      data-decision={p.id}
      role="alertdialog"
      aria-label={`Rule ${d.rule_name} asks to ${proposedOrder(d)}`}
    >
      <div className="proposal-head">
        <span className="proposal-rule">rule &lsquo;{d.rule_name}&rsquo; asks</span>
        {p.closed === null && (
          <span className="proposal-left" data-testid="proposal-left" aria-label={`${left} seconds left`}>
            {left} s
          </span>
        )}
      </div>
      <div className="proposal-order">
        <span className={d.side === 'long' ? 'pos' : 'neg'}>{d.side.toUpperCase()}</span> {d.amount_usd} USDT{' '}
        {d.asset} <span className="proposal-dim">on {proposedVenue(d)}</span>
      </div>
      {p.headline !== null && (
        <div className="proposal-headline">
          <span className="proposal-dim">#{d.signal_id}</span> {p.headline}
        </div>
      )}
      <div className="proposal-analysis">
        <span className={`sent-${d.sentiment ?? 'neutral'}`}>{d.sentiment ?? 'no sentiment'}</span>
        {d.impact !== null && <span> · impact {Math.round(d.impact)}</span>}
        {p.reasoning !== null && <span className="proposal-dim"> · {p.reasoning}</span>}
      </div>
      {p.closed === null ? (
        <>
          <div className="proposal-bar" aria-hidden="true">
            <span
              style={{
                width: `${Math.min(100, (left * 1000 * 100) / Math.max(1, p.expiresAt - Date.parse(d.decided_at)))}%`,
              }}
            />
          </div>
          <div className="proposal-actions">
            <button
              type="button"
              className="proposal-confirm"
              disabled={sent !== null || left === 0}
              onClick={() => answer(true)}
            >
              {sent === 'confirm' ? 'Confirming…' : 'Confirm'}
            </button>
            <button
              type="button"
              className="proposal-reject"
              disabled={sent !== null || left === 0}
              onClick={() => answer(false)}
            >
              {sent === 'reject' ? 'Rejecting…' : 'Reject'}
            </button>
          </div>
        </>
      ) : (
        <div className="proposal-closed" data-testid="proposal-closed">
          {p.closed}
        </div>
      )}
    </div>
  );
}
