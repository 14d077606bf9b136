import { useEffect } from 'react';
import type { ChartSourceModel } from '../services/market/chartSource';

/** The element TradingView's frame goes into. */
const CONTAINER_ID = 'tradingview-chart';

/** TradingView's chart for the chosen symbol and interval; the model puts its frame in and takes it out. */
export function TradingViewChart({ model }: { model: ChartSourceModel }) {
  useEffect(() => model.mount(CONTAINER_ID), [model]);
  return <div id={CONTAINER_ID} className="chart-tv" data-testid="chart-tv" />;
}
