import { effect, type ReadonlySignal, type Signal } from '@preact/signals-core';
import type {
  AutoscaleInfo,
  IChartApi,
  IPriceLine,
  ISeriesApi,
  LineStyle as LineStyleEnum,
  UTCTimestamp,
} from 'lightweight-charts';
import type {
  ChartDeadline,
  ChartLine,
  ChartLineKind,
  LineStyle,
  PositionChart,
} from '../services/trading/chartLines';
import { GRAB_PX, grabbedLine } from '../services/trading/chartDrag';
import type { ChartMover } from '../services/trading/chartMover';

/**
 * The position's lines on the candles (price lines of the series) and the dragging of its stop and
 * target: a mouse takes a line at once, a finger after a long press (so a swipe still pans the chart).
 * While a line is held the chart neither scrolls nor zooms.
 */

/** How long a finger rests on a line before it is taken, and how far it may wander meanwhile. */
const LONG_PRESS_MS = 350;
const PRESS_SLOP_PX = 8;

export interface PositionLayerDeps {
  chart: IChartApi;
  series: ISeriesApi<'Candlestick'>;
  /** The element the chart is drawn in: pointer events are read there. */
  element: HTMLElement;
  position: ReadonlySignal<PositionChart | null>;
  mover: ChartMover;
  /** The library's line styles. */
  styles: typeof LineStyleEnum;
  /** Open time (ms) and index of the last candle, and the candle's length (ms); null before a load. */
  lastCandle: () => { open: number; index: number; length: number } | null;
  /** Where each deadline falls across the chart, written here for the pane to draw. */
  marks: Signal<readonly DeadlineMark[]>;
  /** Where each stop and target line is, for its grip. */
  grips: Signal<readonly LineGrip[]>;
}

/** A draggable line's grip at (`x`, `y`) px in the chart. */
export interface LineGrip {
  kind: 'sl' | 'tp';
  x: number;
  y: number;
  color: string;
}

/** A deadline at `x` px from the chart's left; `ahead` when it is past the right edge (then `x` is the edge). */
export interface DeadlineMark extends ChartDeadline {
  x: number;
  ahead: boolean;
}

const styleOf = (styles: typeof LineStyleEnum, style: LineStyle): LineStyleEnum =>
  style === 'solid' ? styles.Solid : style === 'dashed' ? styles.Dashed : styles.Dotted;

/** Keeps one price line per drawn line: created, moved and removed as the position changes. */
function syncLines(deps: PositionLayerDeps): () => void {
  const drawn = new Map<ChartLineKind, IPriceLine>();
  const options = (line: ChartLine, held: boolean) => ({
    price: line.price,
    color: line.color,
    lineWidth: line.kind === 'entry' ? (2 as const) : (1 as const),
    lineStyle: styleOf(deps.styles, line.style),
    // The line being dragged stays where it is, faded, until the move goes through.
    lineVisible: true,
    axisLabelVisible: !held,
    axisLabelColor: line.color,
    axisLabelTextColor: '#0b0e11',
    title: line.title,
  });
  const stop = effect(() => {
    const lines = deps.position.value?.lines ?? [];
    const held = deps.mover.ghost.value?.kind ?? null;
    for (const [kind, line] of drawn) {
      if (!lines.some((l) => l.kind === kind)) {
        deps.series.removePriceLine(line);
        drawn.delete(kind);
      }
    }
    for (const line of lines) {
      const shown = drawn.get(line.kind);
      const next = options(line, line.kind === held);
      if (shown === undefined) drawn.set(line.kind, deps.series.createPriceLine(next));
      else shown.applyOptions(next);
    }
  });
  return () => {
    stop();
    for (const line of drawn.values()) deps.series.removePriceLine(line);
    drawn.clear();
  };
}

/** The ghost line that follows the pointer, with the price and the % from the entry. */
function syncGhost(deps: PositionLayerDeps): () => void {
  let line: IPriceLine | null = null;
  const stop = effect(() => {
    const ghost = deps.mover.ghost.value;
    if (ghost === null) {
      if (line !== null) deps.series.removePriceLine(line);
      line = null;
      return;
    }
    const color = deps.position.peek()?.lines.find((l) => l.kind === ghost.kind)?.color ?? '#eaecef';
    const options = {
      price: ghost.price,
      color,
      lineWidth: 2 as const,
      lineStyle: deps.styles.LargeDashed,
      lineVisible: true,
      axisLabelVisible: true,
      axisLabelColor: color,
      axisLabelTextColor: '#0b0e11',
      title: ghost.text,
    };
    if (line === null) line = deps.series.createPriceLine(options);
    else line.applyOptions(options);
  });
  return () => {
    stop();
    if (line !== null) deps.series.removePriceLine(line);
  };
}

/** Pointer handling: take a line, follow, release (or Esc to drop it). */
function dragLines(deps: PositionLayerDeps): () => void {
  const { chart, series, element, mover } = deps;
  let held: number | null = null;
  let press: { id: number; x: number; y: number; timer: ReturnType<typeof setTimeout> } | null = null;
  const localY = (e: PointerEvent): number => e.clientY - element.getBoundingClientRect().top;
  const freeze = (frozen: boolean): void =>
    chart.applyOptions({ handleScroll: !frozen, handleScale: !frozen });
  const lineAt = (e: PointerEvent) =>
    grabbedLine(
      deps.position.peek(),
      localY(e),
      (p) => series.priceToCoordinate(p),
      GRAB_PX[e.pointerType === 'touch' ? 'touch' : 'mouse'],
    );

  const take = (e: PointerEvent, kind: 'sl' | 'tp'): void => {
    if (!mover.start(kind)) return;
    held = e.pointerId;
    freeze(true);
    element.classList.add('chart-dragging');
    try {
      element.setPointerCapture(e.pointerId);
    } catch {
      // The pointer is already gone: the next move or up ends the drag.
    }
  };
  const endPress = (): void => {
    if (press === null) return;
    clearTimeout(press.timer);
    press = null;
    if (held === null) freeze(false);
  };
  const drop = (): void => {
    held = null;
    freeze(false);
    element.classList.remove('chart-dragging');
  };

  const onDown = (e: PointerEvent): void => {
    if (held !== null || press !== null || mover.busy.peek() || e.button > 0) return;
    const line = lineAt(e);
    if (line === null || (line.kind !== 'sl' && line.kind !== 'tp')) return;
    const kind = line.kind;
    e.stopPropagation();
    if (e.pointerType !== 'touch') {
      // No mousedown follows: the chart does not start a pan under the line.
      e.preventDefault();
      take(e, kind);
      return;
    }
    freeze(true);
    const timer = setTimeout(() => {
      press = null;
      take(e, kind);
      navigator.vibrate?.(10);
    }, LONG_PRESS_MS);
    press = { id: e.pointerId, x: e.clientX, y: e.clientY, timer };
  };
  const onMove = (e: PointerEvent): void => {
    if (press !== null && e.pointerId === press.id) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) > PRESS_SLOP_PX) endPress();
      return;
    }
    if (held === e.pointerId) {
      e.stopPropagation();
      mover.follow(series.coordinateToPrice(localY(e)));
      return;
    }
    if (held === null && e.pointerType === 'mouse') {
      element.classList.toggle('chart-grab', !mover.busy.peek() && lineAt(e) !== null);
    }
  };
  const onUp = (e: PointerEvent): void => {
    if (press !== null && e.pointerId === press.id) endPress();
    if (held !== e.pointerId) return;
    e.stopPropagation();
    drop();
    void mover.release();
  };
  const onCancel = (e: PointerEvent): void => {
    if (press !== null && e.pointerId === press.id) endPress();
    if (held !== e.pointerId) return;
    drop();
    mover.cancel();
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key !== 'Escape' || held === null) return;
    drop();
    mover.cancel();
  };
  // A finger on a line (waiting for the long press, or dragging) is not the chart's to pan, nor the
  // page's to scroll (a scroll would end the drag).
  const onTouch = (e: TouchEvent): void => {
    if (press === null && held === null) return;
    e.stopPropagation();
    if (e.type === 'touchmove' && e.cancelable) e.preventDefault();
  };
  const listeners: [string, EventListener][] = [
    ['pointerdown', onDown as EventListener],
    ['pointermove', onMove as EventListener],
    ['pointerup', onUp as EventListener],
    ['pointercancel', onCancel as EventListener],
    ['touchstart', onTouch as EventListener],
    ['touchmove', onTouch as EventListener],
  ];
  for (const [name, fn] of listeners) element.addEventListener(name, fn, { capture: true, passive: false });
  window.addEventListener('keydown', onKey, true);
  return () => {
    endPress();
    for (const [name, fn] of listeners) element.removeEventListener(name, fn, { capture: true });
    window.removeEventListener('keydown', onKey, true);
  };
}

/** Where each deadline falls across the time scale: from the last candle, a bar's width per candle. */
function placeDeadlines(deps: PositionLayerDeps): DeadlineMark[] {
  const time = deps.chart.timeScale();
  const last = deps.lastCandle();
  const width = time.width();
  const lastX = last === null ? null : time.timeToCoordinate((last.open / 1000) as UTCTimestamp);
  const spacing = time.options().barSpacing;
  return (deps.position.peek()?.deadlines ?? []).map((d) => {
    if (last === null || lastX === null) return { ...d, x: width, ahead: true };
    const x = lastX + ((d.at - last.open) / last.length) * spacing;
    if (x > width) return { ...d, x: width, ahead: true };
    return { ...d, x: Math.max(0, x), ahead: false };
  });
}

/** A grip on each stop and target line, at the pane's right edge: what says the line can be taken. */
function placeGrips(deps: PositionLayerDeps): LineGrip[] {
  // Left of the lines' titles, which sit against the price scale.
  const x = Math.max(24, deps.chart.timeScale().width() - 150);
  const grips: LineGrip[] = [];
  for (const line of deps.position.peek()?.lines ?? []) {
    const y = line.draggable ? deps.series.priceToCoordinate(line.price) : null;
    if (y !== null) grips.push({ kind: line.kind as LineGrip['kind'], x, y, color: line.color });
  }
  return grips;
}

/**
 * Keeps the deadlines and grips where the chart draws: again whenever the candles, the position, the
 * scroll, the zoom or the size change (on the next frame, once the chart has drawn).
 */
function syncOverlay(deps: PositionLayerDeps): () => void {
  const time = deps.chart.timeScale();
  let frame: number | null = null;
  const place = (): void => {
    frame = null;
    deps.marks.value = placeDeadlines(deps);
    deps.grips.value = placeGrips(deps);
  };
  const soon = (): void => {
    if (frame === null) frame = requestAnimationFrame(place);
  };
  const stop = effect(() => {
    void deps.position.value;
    void deps.lastCandle();
    soon();
  });
  time.subscribeVisibleLogicalRangeChange(soon);
  time.subscribeSizeChange(soon);
  return () => {
    stop();
    if (frame !== null) cancelAnimationFrame(frame);
    time.unsubscribeVisibleLogicalRangeChange(soon);
    time.unsubscribeSizeChange(soon);
    deps.marks.value = [];
    deps.grips.value = [];
  };
}

/** The price scale takes in the entry, the stop and the target (not the liquidation, often far off). */
function keepInView(deps: PositionLayerDeps): () => void {
  deps.series.applyOptions({
    autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => {
      const info = original();
      const prices = (deps.position.peek()?.lines ?? []).filter((l) => l.kind !== 'liq').map((l) => l.price);
      if (info === null || info.priceRange === null || prices.length === 0) return info;
      const { minValue, maxValue } = info.priceRange;
      return {
        ...info,
        priceRange: { minValue: Math.min(minValue, ...prices), maxValue: Math.max(maxValue, ...prices) },
      };
    },
  });
  return () =>
    deps.series.applyOptions({ autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => original() });
}

/** Draws the position on the chart and lets its stop and target be dragged; answers the disposer. */
export function attachPositionLayer(deps: PositionLayerDeps): () => void {
  const disposers = [keepInView(deps), syncLines(deps), syncGhost(deps), syncOverlay(deps), dragLines(deps)];
  return () => {
    for (const dispose of disposers) dispose();
  };
}
