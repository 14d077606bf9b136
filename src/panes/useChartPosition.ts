import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { IChartApi, ISeriesApi, LineStyle } from 'lightweight-charts';
import { useMemo } from 'react';
import { useServices } from '../app/AppContext';
import { intervalMs } from '../contracts/market';
import { pricePrecision } from '../services/market/format';
import type { PositionChart } from '../services/trading/chartLines';
import { createChartMover, type ChartMover } from '../services/trading/chartMover';
import { chartPositionSignal } from '../services/trading/chartPosition';
import { attachPositionLayer, type DeadlineMark, type LineGrip } from './chartPositionLayer';

/** Draws the position's layer on a chart once it exists; answers the disposer. */
export type AttachLayer = (
  chart: IChartApi,
  series: ISeriesApi<'Candlestick'>,
  element: HTMLElement,
  styles: typeof LineStyle,
) => () => void;

export interface ChartPosition {
  position: ReadonlySignal<PositionChart | null>;
  mover: ChartMover;
  marks: ReadonlySignal<readonly DeadlineMark[]>;
  grips: ReadonlySignal<readonly LineGrip[]>;
  attach: AttachLayer;
}

/**
 * The active account's position on the chart's pair, the mover that drags its stop and target through
 * the terminal's `protect` command, and the layer that draws both on the chart.
 */
export function useChartPosition(): ChartPosition {
  const { stores, chart: model, confirmations, terminal, clock } = useServices();
  return useMemo(() => {
    const position = chartPositionSignal({
      pair: stores.ui.symbol,
      positions: stores.positions.positions,
      openedByRule: stores.rules.openedByRule,
      account: computed(() => stores.account.state.value?.account ?? 'paper'),
      rules: stores.rules.rules,
      loggedIn: stores.session.isLoggedIn,
    });
    const precision = (): number => pricePrecision(model.lastPrice.peek() ?? position.peek()?.entry ?? 0);
    const mover = createChartMover({
      position,
      precision,
      dialogs: confirmations,
      execute: (line) => terminal.execute(line, 'ui'),
      now: () => clock.now(),
    });
    const marks = signal<readonly DeadlineMark[]>([], { name: 'chart.deadlines' });
    const grips = signal<readonly LineGrip[]>([], { name: 'chart.grips' });
    const lastCandle = () => {
      const candles = model.view.value.candles;
      const last = candles.at(-1);
      if (last === undefined) return null;
      return { open: last.time, index: candles.length - 1, length: intervalMs(model.interval.value) };
    };
    const attach: AttachLayer = (chart, series, element, styles) =>
      attachPositionLayer({ chart, series, element, position, mover, styles, lastCandle, marks, grips });
    return { position, mover, marks, grips, attach };
  }, [stores, model, confirmations, terminal, clock]);
}
