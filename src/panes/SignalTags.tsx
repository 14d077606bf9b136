import { useComputed, useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { contractSymbolOf } from '../contracts/symbols';
import { changeDirection, changeSince, formatChange } from '../services/feed/priceChange';
import type { FeedSignal } from '../services/feed/types';
import { QuickTradePopover } from './QuickTradePopover';

/** `$BTC +1.20%`: the change since arrival, live from the price socket. */
function TagChange({ ticker, initial }: { ticker: string; initial: number | undefined }) {
  useSignals();
  const { stores } = useServices();
  const price = useComputed(
    () => stores.market.prices.value.get(contractSymbolOf(ticker) ?? `${ticker}USDT`)?.p,
  );
  const change = changeSince(initial, price.value);
  return (
    <span className={`tag-change ${changeDirection(change)}`} data-testid="tag-change">
      {formatChange(change)}
    </span>
  );
}

/** The footer's asset tags, each with its watchlist toggle, and the quick-trade popover on hover. */
export function SignalTags({ signal }: { signal: FeedSignal }) {
  useSignals();
  const { stores, feed } = useServices();
  const loggedIn = stores.session.isLoggedIn.value;
  const watched = stores.watchlist.watched.value;
  const pending = feed.watchlistToggles.pending.value;
  const popover = feed.quickTrade.popover.value;
  if (signal.assets.length === 0) {
    return <span className="tag general">GENERAL</span>;
  }
  return (
    <span className="tags">
      {signal.assets.map((ticker) => {
        const on = watched.has(ticker);
        const showPopover = popover?.signalId === signal.id && popover.ticker === ticker;
        return (
          <span key={ticker} className="tag-wrap">
            <span
              className="tag"
              data-testid="asset-tag"
              data-ticker={ticker}
              onMouseEnter={() => feed.quickTrade.hover(signal.id, ticker)}
              onMouseLeave={() => feed.quickTrade.leave()}
            >
              <span className="tag-ticker">${ticker}</span>
              <TagChange ticker={ticker} initial={signal.initial_prices[ticker]} />
            </span>
            <button
              type="button"
              className={`watch-toggle${on ? ' on' : ''}`}
              data-testid="watch-toggle"
              aria-pressed={on}
              aria-label={on ? `Remove ${ticker} from watchlist` : `Add ${ticker} to watchlist`}
              title={
                loggedIn ? (on ? 'On your watchlist' : 'Add to watchlist') : 'Log in to use the watchlist'
              }
              disabled={!loggedIn || pending.has(ticker)}
              onClick={() => void feed.watchlistToggles.toggle(ticker)}
            >
              {on ? '✓' : '+'}
            </button>
            {showPopover ? <QuickTradePopover ticker={ticker} /> : null}
          </span>
        );
      })}
    </span>
  );
}
