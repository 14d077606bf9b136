import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startLiveBench } from './lib/live-account';
import { report } from './lib/report';

/**
 * How long a live position is unprotected: `POST /api/orders` with a stop-loss and a take-profit on an
 * account that uses a saved key, against the local Binance double. Measured two ways for each order:
 * from the entry's fill on the double to its stop resting there (the double's own clock: what a
 * crash at the worst moment would leave bare), and the server's own `unprotected_ms` in the answer
 * (from the fill known to both legs confirmed). The order's round trip with and without protection
 * says what the legs add to the answer. Each protected order is closed again before the next.
 */
const ORDERS = Number(process.env.BENCH_PROTECTION_ORDERS ?? 60);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

const { double, call, close } = await startLiveBench('guard');
try {
  const entry = { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 500 };
  const guarded = { ...entry, protection: { stop_loss_pct: 2, take_profit_pct: 4 } };
  const closePosition = () => call('POST', '/api/close_position', { symbol: 'BTC/USDT' });
  // Warm-up: caches, connections, JIT.
  for (let n = 0; n < 10; n++) {
    await call('POST', '/api/orders', guarded, randomUUID());
    await closePosition();
  }

  const fillToRest: number[] = [];
  const serverGap: number[] = [];
  const withLegs: number[] = [];
  const without: number[] = [];
  let unprotected = 0;
  for (let n = 0; n < ORDERS; n++) {
    const ordersBefore = double.orders.length;
    const legsBefore = double.algoOrders.length;
    let started = performance.now();
    const res = await call('POST', '/api/orders', guarded, randomUUID());
    withLegs.push(performance.now() - started);
    const fill = double.orders[ordersBefore];
    const stop = double.algoOrders.slice(legsBefore).find((o) => o.type === 'STOP_MARKET');
    const receipt = res.json.protection as { unprotected_ms: number | null } | null;
    if (res.status !== 200 || fill === undefined || stop === undefined || receipt?.unprotected_ms == null) {
      unprotected += 1;
    } else {
      fillToRest.push(stop.createTime - fill.time);
      serverGap.push(receipt.unprotected_ms);
    }
    await closePosition();
    started = performance.now();
    await call('POST', '/api/orders', entry, randomUUID());
    without.push(performance.now() - started);
    await closePosition();
  }
  for (const list of [fillToRest, serverGap, withLegs, without]) list.sort((a, b) => a - b);
  report('protection', 'fill_to_stop_resting_p50', percentile(fillToRest, 0.5), 'ms');
  report('protection', 'fill_to_stop_resting_p99', percentile(fillToRest, 0.99), 'ms');
  report('protection', 'unprotected_ms_answered_p50', percentile(serverGap, 0.5), 'ms');
  report('protection', 'unprotected_ms_answered_p99', percentile(serverGap, 0.99), 'ms');
  report('protection', 'order_with_legs_round_trip_p50', percentile(withLegs, 0.5), 'ms');
  report('protection', 'order_with_legs_round_trip_p99', percentile(withLegs, 0.99), 'ms');
  report('protection', 'order_without_legs_round_trip_p50', percentile(without, 0.5), 'ms');
  report('protection', 'order_without_legs_round_trip_p99', percentile(without, 0.99), 'ms');
  report('protection', 'orders_left_unprotected', unprotected, 'orders');
} finally {
  await close();
}
