import type { EventType } from '../../../src/contracts/analysis';
import type { NewsSourceKind, SourceState } from '../../../src/contracts/signals';
import type { Clock, Disposer } from '../market/clock';

export { every, systemClock, type Clock, type Disposer } from '../market/clock';

/** One news item as a source hands it to the pipeline, before normalisation. */
export interface RawItem {
  source_name: string;
  username: string | null;
  icon: string | null;
  url: string | null;
  content: string;
  media_urls: string[];
  quote: RawQuote | null;
  published_at: string | null;
  /** The source's own id (RSS guid, tweet id…); the same id twice from one source is a duplicate. */
  external_id: string | null;
  /**
   * When the item first arrived, for an item fed in late (a backfill at start): it is stored with this
   * time, so it sorts and ages as the old item it is. Absent: it arrives now.
   */
  received_at?: string;
  /**
   * From a source's first poll after start: news that was waiting there, whatever its age. It is shown
   * and stored like any item; no rule trades it.
   */
  backlog?: boolean;
}

export interface RawQuote {
  source_name: string | null;
  username: string | null;
  icon: string | null;
  content: string;
  media_urls: string[];
}

/** What a source calls for each item; resolves once the pipeline has taken it (not analysed). */
export type Emit = (item: RawItem) => Promise<unknown>;

/** The subset of a pino logger the sources write to. */
export interface NewsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SourceContext {
  emit: Emit;
  clock: Clock;
  log: NewsLog;
  /** A source calls this whenever its state changes (the stream's `status` event follows). */
  setState(state: SourceState['state'], detail?: string): void;
}

/**
 * A news source: turns its input (a bundled file, a feed, a stream, a webhook) into raw items. `start`
 * returns the disposer that stops it; no timer or socket may outlive it.
 */
export interface NewsSource {
  readonly name: NewsSourceKind;
  start(ctx: SourceContext): Disposer;
}

/** An empty raw item with the given fields. */
export function rawItem(fields: Partial<RawItem> & Pick<RawItem, 'content' | 'source_name'>): RawItem {
  return {
    username: null,
    icon: null,
    url: null,
    media_urls: [],
    quote: null,
    published_at: null,
    external_id: null,
    ...fields,
  };
}

/**
 * Maps the analyzer's raw impact score of an event type to the calibrated one (what the market made of
 * such scores); null where the raw score stands. The scorecard fits it and hands it over.
 */
export type ImpactCalibrator = (eventType: EventType, raw: number) => number | null;
