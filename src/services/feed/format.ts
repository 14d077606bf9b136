import { contractSymbolOf } from '../../contracts/symbols';
import { readable } from './content';
import { formatChange, changeSince } from './priceChange';
import { timeAgo } from './timeAgo';
import { impactOf, sentimentOf, type FeedSignal } from './types';

/** docs/product.md §2: impact to two decimals. */
export const formatImpact = (impact: number | null): string => (impact === null ? '—' : impact.toFixed(2));

/** One line of text (content newlines flattened), cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** The fields of a signal the terminal's `feed` prints. */
export interface SignalSummary {
  age: string;
  /** `POS`, `NEG`, `NEU`, or `…` while analyzing. */
  sentiment: string;
  tone: 'positive' | 'negative' | 'neutral' | 'analyzing';
  impact: string;
  /** `$BTC +1.20%`, `$USDC` (not traded here), … or `GENERAL`. */
  tags: string[];
  source: string;
  headline: string;
}

const SHORT = { positive: 'POS', negative: 'NEG', neutral: 'NEU' } as const;

/** A signal summarised for one terminal line; `priceOf` answers the latest price of a symbol. */
export function summarize(
  s: FeedSignal,
  now: number,
  priceOf: (symbol: string) => number | undefined,
  headlineChars = 90,
): SignalSummary {
  const sentiment = sentimentOf(s);
  const tags =
    s.analysis.status === 'analyzing'
      ? []
      : s.assets.length === 0
        ? ['GENERAL']
        : s.assets.map((a) => {
            // A tag without a contract (a stablecoin, FTT) has no price here: shown without a change.
            const symbol = contractSymbolOf(a);
            if (symbol === undefined) return `$${a}`;
            return `$${a} ${formatChange(changeSince(s.initial_prices[a], priceOf(symbol)))}`;
          });
  return {
    age: timeAgo(s.client_received_at, now),
    sentiment: sentiment === null ? '…' : SHORT[sentiment],
    tone: sentiment ?? 'analyzing',
    impact: s.analysis.status === 'analyzing' ? 'analyzing…' : formatImpact(impactOf(s)),
    tags,
    source: s.metadata.source_name,
    headline: oneLine(readable(s.content), headlineChars),
  };
}
