import type { NewsSourceKind, SourceState } from '../../../src/contracts/signals';
import type { Clock, Disposer, NewsLog, NewsSource, RawItem } from './news.types';

/**
 * Starts the configured sources, hands their items to the pipeline and keeps each one's state (live,
 * replay, degraded); `onChange` hears every change of state.
 */
export class SourceManager {
  private readonly states = new Map<NewsSourceKind, SourceState>();
  private readonly stops: Disposer[] = [];

  constructor(
    private readonly sources: readonly NewsSource[],
    private readonly deps: {
      clock: Clock;
      log: NewsLog;
      ingest: (source: NewsSourceKind, item: RawItem) => Promise<unknown>;
      onChange: (states: SourceState[]) => void;
    },
  ) {}

  start(): void {
    for (const source of this.sources) {
      this.states.set(source.name, { name: source.name, state: 'degraded', detail: 'starting' });
      this.stops.push(
        source.start({
          clock: this.deps.clock,
          log: this.deps.log,
          emit: (item) => this.deps.ingest(source.name, item),
          setState: (state, detail) => this.set(source.name, state, detail),
        }),
      );
    }
  }

  private set(name: NewsSourceKind, state: SourceState['state'], detail?: string): void {
    const before = this.states.get(name);
    if (before?.state === state && before.detail === detail) return;
    const next: SourceState = detail === undefined ? { name, state } : { name, state, detail };
    this.states.set(name, next);
    if (state === 'degraded' && before?.state !== 'degraded')
      this.deps.log.warn({ source: name, detail }, 'news source degraded');
    this.deps.onChange(this.list());
  }

  list(): SourceState[] {
    return [...this.states.values()];
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}
