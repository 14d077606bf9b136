import { useSignals } from '@preact/signals-react/runtime';
import { memo } from 'react';
import { useServices } from '../app/AppContext';
import { mediaSrc } from '../services/feed/content';
import { formatImpact } from '../services/feed/format';
import { timeAgo } from '../services/feed/timeAgo';
import { retractionView } from '../services/feed/retraction';
import { impactOf, sentimentOf, type FeedSignal } from '../services/feed/types';
import { firedNote } from '../services/rules/rules';
import { SignalMedia, SignalText } from './SignalContent';
import { SignalReceipt } from './SignalReceipt';
import { SignalTags } from './SignalTags';
import './SignalCard.css';

/** The time-ago label, refreshed every second from the feed's ticking clock (docs/product.md §9). */
function TimeAgo({ at }: { at: number }) {
  useSignals();
  const { feed } = useServices();
  return (
    <time className="card-time" dateTime={new Date(at).toISOString()} data-testid="card-time">
      {timeAgo(at, feed.now.value)}
    </time>
  );
}

function Avatar({ icon }: { icon: string | null }) {
  const src = mediaSrc(icon);
  return src === null ? <span className="card-icon blank" /> : <img className="card-icon" src={src} alt="" />;
}

/**
 * "Rule …: long 0.94 SOL = 199.80 USDT, 43 ms after the news: analysed 3, decided 1, paper 39." on a card
 * whose signal fired one of your rules; "Rule … skipped: stale: published 12 min ago (max 15 s)." on one
 * too old to trade.
 */
function RuleFired({ signalId }: { signalId: string }) {
  useSignals();
  const { stores } = useServices();
  const fired = stores.rules.notedBySignal.value.get(signalId);
  if (fired === undefined) return null;
  return (
    <div className={fired.outcome === 'fired' ? 'card-rule' : 'card-rule skipped'} data-testid="card-rule">
      {firedNote(fired)}
    </div>
  );
}

/** The quoted post (a retweet's original, a forwarded message). */
function Quote({ quote }: { quote: NonNullable<FeedSignal['quote_data']> }) {
  return (
    <div className="card-quote" data-testid="card-quote">
      <div className="card-quote-source">
        <Avatar icon={quote.icon} />
        <span>{quote.source_name ?? ''}</span>
        {quote.username === null ? null : <span className="card-user">@{quote.username}</span>}
      </div>
      <SignalText text={quote.content} />
      <SignalMedia urls={quote.media_urls} />
    </div>
  );
}

/** The footer's analysis: sentiment, "Impact" to two decimals and the AI Reasoning hint, or "analyzing…". */
function Analysis({ signal }: { signal: FeedSignal }) {
  const sentiment = sentimentOf(signal);
  if (signal.analysis.status === 'analyzing' || sentiment === null) {
    return (
      <span className="card-analyzing" data-testid="card-analyzing">
        analyzing…
      </span>
    );
  }
  return (
    <span className="card-analysis">
      <span className={`card-sentiment ${sentiment}`} data-testid="card-sentiment">
        {sentiment.toUpperCase()}
      </span>
      <span className="card-impact" data-testid="card-impact">
        Impact {formatImpact(impactOf(signal))}
      </span>
      <span
        className="card-reasoning"
        tabIndex={0}
        title={signal.analysis.nlp.reasoning}
        data-testid="card-reasoning"
      >
        AI Reasoning
        <span className="card-reasoning-text" role="tooltip">
          {signal.analysis.nlp.reasoning}
        </span>
      </span>
    </span>
  );
}

/** Source icon, name and username: the part of the header that opens the source. */
function CardFrom({ signal }: { signal: FeedSignal }) {
  return (
    <>
      <Avatar icon={signal.metadata.icon} />
      <span className="card-source">{signal.metadata.source_name}</span>
      {signal.metadata.username === null ? null : (
        <span className="card-user">@{signal.metadata.username}</span>
      )}
    </>
  );
}

/** RETRACTED on a story a later signal retracts (its words on hover); "retracts #id" on that signal. */
function Retraction({ signal }: { signal: FeedSignal }) {
  const { stores } = useServices();
  const { mark, link } = retractionView(signal);
  return (
    <>
      {mark === null ? null : (
        <span className="card-retracted" tabIndex={0} title={mark.hover} data-testid="card-retracted">
          {mark.label}
          <span className="card-retracted-text" role="tooltip">
            {mark.hover}
          </span>
        </span>
      )}
      {link === null ? null : (
        <a
          className="card-retracts"
          href={`#signal-${link.target}`}
          data-testid="card-retracts"
          onClick={(e) => {
            e.preventDefault();
            e.stopPropagation();
            stores.feedView.focus(link.target);
          }}
        >
          {link.label}
        </a>
      )}
    </>
  );
}

interface CardProps {
  signal: FeedSignal;
  focused: boolean;
  highlighted: boolean;
}

/** One signal card (docs/product.md §2). Content is always rendered as text; links are http(s) only. */
export const SignalCard = memo(function SignalCard({ signal, focused, highlighted }: CardProps) {
  useSignals();
  const { stores, feed } = useServices();
  const tone = sentimentOf(signal) ?? 'analyzing';
  const url = signal.metadata.url;
  const popover = feed.quickTrade.popover.value?.signalId === signal.id;
  // A card whose signal fired one of the user's rules is marked; one a rule was held back on, quietly.
  const ruled = stores.rules.notedBySignal.value.get(signal.id);
  const classes = [
    'card',
    tone,
    focused ? 'focused' : '',
    highlighted ? 'highlighted' : '',
    popover ? 'has-popover' : '',
    signal.retraction ? 'retracted' : '',
    ruled === undefined ? '' : ruled.outcome === 'fired' ? 'rule-fired' : 'rule-skipped',
  ].filter(Boolean);
  return (
    <article
      className={classes.join(' ')}
      data-testid="signal-card"
      id={`signal-${signal.id}`}
      data-id={signal.id}
      data-status={signal.analysis.status}
      data-rule={ruled === undefined ? undefined : ruled.outcome}
      aria-current={focused ? 'true' : undefined}
      onClick={() => stores.feedView.focus(signal.id)}
    >
      <div className="card-header">
        <span className="card-index" aria-hidden="true" />
        <span
          className="card-id"
          data-testid="card-id"
          title={`Stays with this card: #${signal.id} long 100 trades it`}
        >
          #{signal.id}
        </span>
        {url === null ? (
          <span className="card-from">
            <CardFrom signal={signal} />
          </span>
        ) : (
          <a className="card-from linked" href={url} target="_blank" rel="noopener noreferrer" title={url}>
            <CardFrom signal={signal} />
          </a>
        )}
        <Retraction signal={signal} />
        <TimeAgo at={signal.client_received_at} />
      </div>
      <SignalText text={signal.content} />
      {signal.quote_data === null ? null : <Quote quote={signal.quote_data} />}
      <SignalMedia urls={signal.metadata.media_urls} />
      {signal.also_reported_by.length === 0 ? null : (
        <div className="card-also" data-testid="card-also">
          also reported by {signal.also_reported_by.map((r) => r.source_name).join(', ')}
        </div>
      )}
      <SignalReceipt signal={signal} />
      <div className="card-footer">
        {signal.analysis.status === 'completed' ? <SignalTags signal={signal} /> : null}
        <Analysis signal={signal} />
      </div>
      <RuleFired signalId={signal.id} />
    </article>
  );
});
