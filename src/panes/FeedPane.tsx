import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useRef, type RefObject } from 'react';
import { useServices } from '../app/AppContext';
import { handleFeedKey } from '../services/feed/feedKeys';
import { MIN_IMPACT } from '../services/feed/feedView';
import { AlertsModal } from './AlertsModal';
import { FeedFilterControl } from './FeedFilterControl';
import { ImpactSlider } from './ImpactSlider';
import { SignalCard } from './SignalCard';
import { useFeedHold } from './useFeedHold';
import './feed.css';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

const CONTROLS = 'button, a[href], summary, [role="button"], [role="tab"], [tabindex]';

/** The key went to a control inside the feed (an amount button, `+`, a `$TICKER`), not to its frame. */
function isControl(target: EventTarget | null, frame: HTMLElement): boolean {
  if (!(target instanceof HTMLElement) || target === frame) return false;
  const control = target.closest(CONTROLS);
  return control !== null && control !== frame && frame.contains(control);
}

/** Tabs, the sentiment buttons and the Min Impact slider (docs/product.md §2). */
function FeedControls() {
  useSignals();
  const { stores } = useServices();
  const view = stores.feedView;
  const tab = view.tab.value;
  const filters = view.filters.value;
  const loggedIn = stores.session.isLoggedIn.value;
  return (
    <div className="feed-controls">
      <div className="feed-tabs" role="tablist" aria-label="Feed">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'all'}
          className={`feed-tab${tab === 'all' ? ' active' : ''}`}
          onClick={() => view.chooseTab('all')}
        >
          All News
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'watchlist'}
          className={`feed-tab${tab === 'watchlist' ? ' active' : ''}`}
          disabled={!loggedIn}
          title={loggedIn ? undefined : 'Log in to use the watchlist'}
          onClick={() => view.chooseTab('watchlist')}
        >
          My Watchlist
        </button>
      </div>
      <div className="feed-filters">
        <button
          type="button"
          className={`feed-filter positive${filters.sentiment === 'positive' ? ' active' : ''}`}
          aria-pressed={filters.sentiment === 'positive'}
          onClick={() => view.toggleSentiment('positive')}
        >
          Positive
        </button>
        <button
          type="button"
          className={`feed-filter negative${filters.sentiment === 'negative' ? ' active' : ''}`}
          aria-pressed={filters.sentiment === 'negative'}
          onClick={() => view.toggleSentiment('negative')}
        >
          Negative
        </button>
        <ImpactSlider
          label="Min Impact"
          className="feed-impact"
          range={MIN_IMPACT}
          value={filters.minImpact}
          onChange={(value) => view.setMinImpact(value)}
          valueTestId="min-impact"
        />
      </div>
    </div>
  );
}

/** "3 new ↑" over the top of the list while cards wait: a click lets them in and goes to the top. */
function NewCardsPill({ root }: { root: RefObject<HTMLElement | null> }) {
  useSignals();
  const view = useServices().stores.feedView;
  const waiting = view.waiting.value;
  if (waiting === 0) return null;
  return (
    <div className="feed-new-wrap">
      <button
        type="button"
        className="feed-new"
        data-testid="feed-new"
        title="Show the new cards at the top"
        onClick={() => {
          view.showNew();
          root.current?.querySelector('.feed-list')?.scrollTo({ top: 0 });
        }}
      >
        {waiting} new ↑
      </button>
    </div>
  );
}

/** The signal feed: controls, then the cards, newest on top. */
export function FeedPane() {
  useSignals();
  const services = useServices();
  const { stores, feed } = services;
  const view = stores.feedView;
  const list = view.visible.value;
  const focusedId = view.focusedId.value;
  const highlighted = stores.feed.highlighted.value;
  const notice = feed.watchlistToggles.notice.value;
  const all = stores.feed.signals.value.length;
  const root = useRef<HTMLElement>(null);
  useFeedHold(root, view);

  // The keys work while focus is anywhere in the feed's frame (`g f` focuses the frame).
  useEffect(() => {
    const frame = root.current?.closest<HTMLElement>('[data-pane="feed"]') ?? root.current;
    if (frame === null) return;
    const onKeyDown = (event: KeyboardEvent): void => {
      const used = handleFeedKey(
        {
          key: event.key,
          ctrlKey: event.ctrlKey,
          metaKey: event.metaKey,
          altKey: event.altKey,
          inEditable: isEditable(event.target),
          onControl: isControl(event.target, frame),
        },
        { view, quickTrade: feed.quickTrade, amounts: stores.quickAmounts.amounts },
      );
      if (used) event.preventDefault();
    };
    frame.addEventListener('keydown', onKeyDown);
    return () => frame.removeEventListener('keydown', onKeyDown);
  }, [view, feed.quickTrade, stores.quickAmounts]);

  useEffect(() => {
    if (focusedId === null) return;
    root.current?.querySelector(`[data-id="${CSS.escape(focusedId)}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [focusedId]);

  return (
    <section className="pane feed-pane" aria-labelledby="feed-title" ref={root} data-testid="feed-pane">
      <div className="pane-header">
        <h2 id="feed-title">Signals</h2>
        <span className="feed-count" data-testid="feed-count">
          {list.length === all ? all : `${list.length} / ${all}`}
        </span>
        <span className="feed-header-actions">
          <FeedFilterControl />
          <button
            type="button"
            className="feed-header-button"
            title="Hit rate of the signals after arrival (scorecard)"
            onClick={() => void services.terminal.execute('scorecard', 'ui')}
          >
            Scorecard
          </button>
          <button type="button" className="feed-header-button" onClick={() => stores.alerts.openModal()}>
            Alerts
          </button>
        </span>
      </div>
      <FeedControls />
      {notice === null ? null : (
        <div className="feed-notice" role="alert" data-testid="feed-notice">
          {notice}
        </div>
      )}
      <NewCardsPill root={root} />
      {list.length === 0 ? (
        <div className="pane-body pane-empty" data-testid="feed-empty">
          {all === 0 ? 'Waiting for signals…' : 'No signals match these filters.'}
        </div>
      ) : (
        <div className="pane-body feed-list" role="feed" aria-label="Signals">
          {list.map((s) => (
            <SignalCard
              key={s.id}
              signal={s}
              focused={s.id === focusedId}
              highlighted={highlighted.has(s.id)}
            />
          ))}
        </div>
      )}
      <AlertsModal />
    </section>
  );
}
