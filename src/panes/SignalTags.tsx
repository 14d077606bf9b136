import { useComputed, useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { contractSymbolOf, findTicker } from '../contracts/symbols';
import { isStablecoin, untradedTitle } from '../contracts/tradability';
import { changeDirection, changeSince, formatChange } from '../services/feed/priceChange';
import { tagSymbolLine } from '../services/feed/tagActions';
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
 * The footer's asset tags. A coin traded here is a button: hovering it (logged in) shows the quick-trade
 * popover; a click, Enter or a tap puts it on the chart and opens the popover, Esc closes it. It gets its
 * watchlist toggle; any other tag (a coin without a contract, a stablecoin the news is about) is shown
 * muted, without a price change, with a title that says why it is not traded.
 */
export function SignalTags({ signal }: { signal: FeedSignal }) {
  useSignals();
  const { stores, feed, terminal } = useServices();
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
        const symbolLine = tagSymbolLine(ticker);
        const watchable = findTicker(ticker) !== undefined;
        return (
          <span key={ticker} className="tag-wrap">
            {symbolLine === null ? (
              <span
                className={isStablecoin(ticker) ? 'tag untraded stablecoin' : 'tag untraded'}
                data-testid="asset-tag"
                data-ticker={ticker}
                data-tradable={tradable}
                title={untradedTitle(ticker)}
              >
                <span className="tag-ticker">${ticker}</span>
              </span>
            ) : (
              <button
                type="button"
                className="tag"
                data-testid="asset-tag"
                data-ticker={ticker}
                data-tradable={tradable}
                aria-expanded={showPopover}
                title={`Show ${ticker} on the chart${loggedIn ? ' and trade it' : ''}`}
                onMouseEnter={() => feed.quickTrade.hover(signal.id, ticker)}
                onMouseLeave={() => feed.quickTrade.leave()}
                onClick={() => {
                  // A click, Enter or a tap: the chart shows the coin and the quick-trade rows open.
                  feed.quickTrade.hover(signal.id, ticker);
                  void terminal.execute(symbolLine, 'ui');
                }}
                onKeyDown={(event) => {
                  if (event.key === 'Escape' && showPopover) {
                    event.stopPropagation();
                    feed.quickTrade.close();
                  }
                }}
              >
                <span className="tag-ticker">${ticker}</span>
                <TagChange ticker={ticker} initial={signal.initial_prices[ticker]} />
              </button>
            )}
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
