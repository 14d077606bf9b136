import { useComputed, useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { contractSymbolOf, findTicker } from '../contracts/symbols';
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

/**
 * The footer's asset tags. A coin traded here gets its watchlist toggle and the quick-trade popover on
 * hover; any other known coin is tagged too, plainly, with a title that says it is not traded here.
 */
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
        // The price and the order go to the coin's contract (PEPE → 1000PEPEUSDT); the watchlist keeps
        // the tickers the symbol list has.
        const tradable = contractSymbolOf(ticker) !== undefined;
        const watchable = findTicker(ticker) !== undefined;
        return (
          <span key={ticker} className="tag-wrap">
            <span
              className={tradable ? 'tag' : 'tag untraded'}
              data-testid="asset-tag"
              data-ticker={ticker}
              data-tradable={tradable}
              title={tradable ? undefined : `${ticker} is not traded here`}
              onMouseEnter={tradable ? () => feed.quickTrade.hover(signal.id, ticker) : undefined}
              onMouseLeave={tradable ? () => feed.quickTrade.leave() : undefined}
            >
              <span className="tag-ticker">${ticker}</span>
              {tradable ? <TagChange ticker={ticker} initial={signal.initial_prices[ticker]} /> : null}
            </span>
            {watchable ? (
              <button
                type="button"
                className={`watch-toggle${on ? ' on' : ''}`}
                data-testid="watch-toggle"
                data-ticker={ticker}
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
            ) : null}
            {showPopover ? <QuickTradePopover ticker={ticker} /> : null}
          </span>
        );
      })}
    </span>
  );
}
