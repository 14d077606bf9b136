import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BinanceClient } from '../server/modules/exchanges/binance-client';
import { startLiveBench } from './lib/live-account';
import { report } from './lib/report';

/**
 * A live order's round trip against the local Binance double: `POST /api/orders` on an account that
 * uses a saved key (sizing from cached exchangeInfo, the signed order, the fee look-up, the
 * Idempotency-Key's state moves), one at a time, p50/p99; the signed order alone, straight to the
 * double, for what the server adds on top; and a rule bound to the key, from a headline posted to the
 * webhook to Binance's acknowledgement of the order it fired (analysis, decision, shadow twin, order).
 */
// With the 20 warm-up orders, under the server's limit of 300 orders per user in 10 s: the figure is
// the order path's, not the rate limiter's refusals.
const ORDERS = Number(process.env.BENCH_LIVE_ORDERS ?? 250);
const RULE_HEADLINES = Number(process.env.BENCH_RULE_HEADLINES ?? 40);
const INGEST = 'bench-ingest-token-0123456789abcdef';
const SUBJECTS = [
  'Fidelity',
  'BlackRock',
  'MicroStrategy',
  'El Salvador',
  'Tesla',
  'Coinbase',
  'Kraken',
  'Bhutan',
];
const ACTS = ['buys', 'adds', 'moves', 'reports holding', 'transfers', 'discloses'];
/** Headline n: a story of its own about BTC (subject, act and amount differ from every other). */
const headline = (n: number) =>
  `${SUBJECTS[n % SUBJECTS.length] ?? ''} ${ACTS[Math.floor(n / SUBJECTS.length) % ACTS.length] ?? ''} ` +
  `${1000 + n * 37} BTC, filing ${n} shows`;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

const { double, base, key, keyId, call, close } = await startLiveBench('live', {
  NEWS_SOURCES: 'webhook',
  INGEST_TOKEN: INGEST,
});
try {
  const order = (n: number) => ({
    symbol: 'BTC/USDT',
    side: n % 2 === 0 ? 'long' : 'short',
    type: 'market',
    amount: 250,
  });
  // Warm-up: caches, connections, JIT.
  for (let n = 0; n < 20; n++) await call('POST', '/api/orders', order(n), randomUUID());

  const latencies: number[] = [];
  let failed = 0;
  for (let n = 0; n < ORDERS; n++) {
    const started = performance.now();
    const res = await call('POST', '/api/orders', order(n), randomUUID());
    latencies.push(performance.now() - started);
    if (res.status !== 200) failed += 1;
  }
  latencies.sort((a, b) => a - b);
  report('live-order', 'http_round_trip_p50', percentile(latencies, 0.5), 'ms');
  report('live-order', 'http_round_trip_p99', percentile(latencies, 0.99), 'ms');
  report('live-order', 'http_failed', failed, 'orders');

  // The signed order alone, from this process to the double.
  const client = new BinanceClient({ baseUrl: double.url });
  const direct: number[] = [];
  for (let n = 0; n < ORDERS; n++) {
    const started = performance.now();
    await client.signed(
      'POST',
      '/fapi/v1/order',
      {
        symbol: 'BTCUSDT',
        side: n % 2 === 0 ? 'BUY' : 'SELL',
        type: 'MARKET',
        quantity: '0.004',
        newClientOrderId: `bench-${n}`,
        newOrderRespType: 'RESULT',
      },
      key,
    );
    direct.push(performance.now() - started);
  }
  direct.sort((a, b) => a - b);
  report('live-order', 'signed_order_alone_p50', percentile(direct, 0.5), 'ms');
  report('live-order', 'signed_order_alone_p99', percentile(direct, 0.99), 'ms');

  // A rule bound to the live key: news posted to the webhook → the order acknowledged by Binance (the
  // double's fill time), one headline at a time, each a story of its own about BTC.
  const risk = await call('PUT', '/api/rules/risk', {
    cooldown_minutes: 0,
    live_daily_budget_usd: 10_000_000,
    daily_budget_usd: 10_000_000,
  });
  if (risk.status !== 200) throw new Error(`risk not set: ${JSON.stringify(risk.json)}`);
  const rule = await call('POST', '/api/rules/', {
    ruleName: 'bench live BTC',
    conditions: { asset: 'BTC' },
    action: { type: 'trade', side: 'long', amount_usd: 250, account: keyId },
  });
  if (rule.status !== 201) throw new Error(`rule not saved: ${JSON.stringify(rule.json)}`);
  const newsToAck: number[] = [];
  let missed = 0;
  for (let n = 0; n < RULE_HEADLINES; n++) {
    const before = double.orders.length;
    const sent = Date.now();
    const res = await fetch(`${base}/api/signals/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: headline(n), source_name: `Bench wire ${n}` }),
    });
    if (res.status !== 202) throw new Error(`ingest ${res.status}`);
    const deadline = Date.now() + 5_000;
    while (double.orders.length === before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
    }
    const order = double.orders[before];
    if (order === undefined) missed += 1;
    else newsToAck.push(order.time - sent);
    await new Promise((r) => setTimeout(r, 200));
  }
  newsToAck.sort((a, b) => a - b);
  report('live-order', 'rule_news_to_binance_ack_p50', percentile(newsToAck, 0.5), 'ms');
  report('live-order', 'rule_news_to_binance_ack_p99', percentile(newsToAck, 0.99), 'ms');
  report('live-order', 'rule_headlines_without_order', missed, 'headlines');
} finally {
  await close();
}
