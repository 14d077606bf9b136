import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import {
  DEFAULT_INTERVAL,
  type FeedStatus,
  type Interval,
  type MarketSourceKind,
  type PriceItem,
} from '../../contracts/market';

/** A news signal as the chart needs it; the signal store (news module) feeds these. */
export interface ChartSignal {
  id: string;
  /** Tickers the signal is about, e.g. ['BTC', 'ETH']. */
  assets: readonly string[];
  sentiment: 'positive' | 'negative' | 'neutral';
  headline: string;
  /** When the signal arrived (Unix ms). */
  receivedAt: number;
}

export interface MarketStore {
  /** The latest price of each symbol the price socket has sent (`BTCUSDT` → item). */
  readonly prices: ReadonlySignal<ReadonlyMap<string, PriceItem>>;
  /** Where the server's prices come from, once it has said (price socket hello/heartbeat). */
  readonly source: ReadonlySignal<MarketSourceKind | null>;
  readonly feedStatus: ReadonlySignal<FeedStatus | null>;
  /** True when the prices are the offline simulator's: the header says "SIMULATED PRICES". */
  readonly simulated: ReadonlySignal<boolean>;
  /** The chart's candle interval (docs/product.md §9: 15 minutes). */
  readonly interval: ReadonlySignal<Interval>;
  /** The signals shown as chart markers. */
  readonly chartSignals: ReadonlySignal<readonly ChartSignal[]>;
  applyPrices(items: readonly PriceItem[]): void;
  setFeed(source: MarketSourceKind, status: FeedStatus): void;
  chooseInterval(interval: Interval): void;
  /** Replaces the signals shown on the chart (the signal store calls this as signals arrive). */
  showSignals(signals: readonly ChartSignal[]): void;
}

export function createMarketStore(): MarketStore {
  const prices = signal<ReadonlyMap<string, PriceItem>>(new Map(), { name: 'market.prices' });
  const source = signal<MarketSourceKind | null>(null, { name: 'market.source' });
  const feedStatus = signal<FeedStatus | null>(null, { name: 'market.feedStatus' });
  const interval = signal<Interval>(DEFAULT_INTERVAL, { name: 'market.interval' });
  const chartSignals = signal<readonly ChartSignal[]>([], { name: 'market.chartSignals' });
  return {
    prices,
    source,
    feedStatus,
    simulated: computed(() => source.value === 'sim', { name: 'market.simulated' }),
    interval,
    chartSignals,
    applyPrices(items) {
      if (items.length === 0) return;
      const next = new Map(prices.peek());
      for (const item of items) next.set(item.s, item);
      prices.value = next;
    },
    setFeed(nextSource, status) {
      source.value = nextSource;
      feedStatus.value = status;
    },
    chooseInterval(next) {
      interval.value = next;
    },
    showSignals(signals) {
      chartSignals.value = signals;
    },
  };
}
