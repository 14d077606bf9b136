import { useEffect } from 'react';
import type { ChartSourceModel } from '../services/market/chartSource';

/** The element tv.js draws its widget into. */
const CONTAINER_ID = 'tradingview-chart';

/** TradingView's widget for the chosen symbol and interval; the model draws it and takes it out. */
export function TradingViewChart({ model }: { model: ChartSourceModel }) {
  useEffect(() => model.mount(CONTAINER_ID), [model]);
  return <div id={CONTAINER_ID} className="chart-tv" data-testid="chart-tv" />;
}
