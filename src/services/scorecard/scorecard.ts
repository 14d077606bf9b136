import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import {
  IMPACT_BANDS,
  Scorecard,
  type ScoreGroup,
  type ScoreHorizon,
  type Scorecard as ScorecardT,
} from '../../contracts/scorecard';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** One bar of a hit-rate chart: the group, its rate (null when nothing had a direction), its counts. */
export interface Bar {
  key: string;
  /** 0-100, for the bar's length; 0 without a rate. */
  percent: number;
  rate: string;
  /** Directional moves the rate is measured on. */
  directional: number;
  signals: number;
}

/** The modal's two charts at the chosen horizon. */
export interface ScorecardBars {
  byImpact: Bar[];
  bySource: Bar[];
}

/** The sources a chart shows at most (the ones with the most signals). */
export const MAX_SOURCE_BARS = 8;

export interface ScorecardStore {
  readonly card: ReadonlySignal<ScorecardT | null>;
  readonly loading: ReadonlySignal<boolean>;
  readonly error: ReadonlySignal<string | null>;
  /** The Scorecard modal. */
  readonly modalOpen: ReadonlySignal<boolean>;
  /** The horizon the modal's charts show. */
  readonly horizon: ReadonlySignal<ScoreHorizon>;
  readonly bars: ReadonlySignal<ScorecardBars>;
  openModal(): void;
  closeModal(): void;
  chooseHorizon(horizon: ScoreHorizon): void;
  loadStarted(): void;
  loaded(card: ScorecardT): void;
  failed(message: string): void;
}

/** `67%`, or `—` when there is no rate. */
export const formatRate = (rate: number | null): string =>
  rate === null ? '—' : `${Math.round(rate * 100)}%`;

/** `+0.42%`, `-1.30%`, `0.00%`; `—` when unknown. */
export function formatMove(move: number | null): string {
  if (move === null) return '—';
  const text = Math.abs(move).toFixed(2);
  if (text === '0.00') return '0.00%';
  return `${move > 0 ? '+' : '-'}${text}%`;
}

/** The size of neutral moves, `±0.31%`, or `—`. */
export const formatSize = (size: number | null): string =>
  size === null ? '—' : `±${Math.abs(size).toFixed(2)}%`;

/** What the prices were: what the UI says beside every figure. */
export const priceNote = (card: Pick<ScorecardT, 'price_source'>): string =>
  card.price_source === 'sim' ? 'simulated prices' : 'Binance prices';

/** The hit-rate bars of some groups at one horizon. */
export function barsOf(groups: readonly ScoreGroup[], horizon: ScoreHorizon): Bar[] {
  return groups.map((g) => {
    const h = g.horizons.find((x) => x.horizon === horizon);
    const rate = h?.hit_rate ?? null;
    return {
      key: g.key,
      percent: rate === null ? 0 : Math.round(rate * 1000) / 10,
      rate: formatRate(rate),
      directional: h?.directional ?? 0,
      signals: g.signals,
    };
  });
}

export function createScorecardStore(): ScorecardStore {
  const card = signal<ScorecardT | null>(null, { name: 'scorecard.card' });
  const loading = signal(false, { name: 'scorecard.loading' });
  const error = signal<string | null>(null, { name: 'scorecard.error' });
  const modalOpen = signal(false, { name: 'scorecard.modalOpen' });
  const horizon = signal<ScoreHorizon>('5m', { name: 'scorecard.horizon' });
  const bars = computed(
    (): ScorecardBars => {
      const c = card.value;
      if (c === null) return { byImpact: [], bySource: [] };
      const byImpact = IMPACT_BANDS.map(
        (band) => c.by_impact.find((g) => g.key === band) ?? { key: band, signals: 0, horizons: [] },
      );
      return {
        byImpact: barsOf(byImpact, horizon.value),
        bySource: barsOf(c.by_source.slice(0, MAX_SOURCE_BARS), horizon.value),
      };
    },
    { name: 'scorecard.bars' },
  );
  return {
    card,
    loading,
    error,
    modalOpen,
    horizon,
    bars,
    openModal: () => void (modalOpen.value = true),
    closeModal: () => void (modalOpen.value = false),
    chooseHorizon: (next) => void (horizon.value = next),
    loadStarted() {
      loading.value = true;
      error.value = null;
    },
    loaded(next) {
      card.value = next;
      loading.value = false;
    },
    failed(message) {
      error.value = message;
      loading.value = false;
    },
  };
}

export const SCORECARD_FALLBACK = 'Could not load the scorecard. Please try again.';

/** `GET /signals/scorecard`, checked against the contract; the store follows the call. */
export async function loadScorecard(
  main: ApiClient,
  store: ScorecardStore,
  query: { days?: number; since?: string } = {},
): Promise<Outcome<ScorecardT>> {
  store.loadStarted();
  try {
    const card = await main.call(Scorecard, '/signals/scorecard', {
      query: {
        ...(query.days === undefined ? {} : { days: query.days }),
        ...(query.since === undefined ? {} : { since: query.since }),
      },
    });
    store.loaded(card);
    return { ok: true, value: card };
  } catch (err) {
    const message = errorMessage(err, SCORECARD_FALLBACK);
    store.failed(message);
    return { ok: false, message };
  }
}
