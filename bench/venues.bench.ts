import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BinanceClient } from '../server/modules/exchanges/binance-client';
import { BybitClient } from '../server/modules/exchanges/bybit-client';
import { OkxClient } from '../server/modules/exchanges/okx-client';
import { startBinanceVenueDouble } from '../tests/fixtures/binance-venue-double';
import { startBybitDouble } from '../tests/fixtures/bybit-double';
import { startOkxDouble } from '../tests/fixtures/okx-double';
import type { VenueDouble } from '../tests/fixtures/venue-double';
import { BENCH_PASSPHRASE, startVenueBench } from './lib/live-account';
import { report } from './lib/report';

/**
 * Each venue side by side, against its local double: a manual order's round trip through the server
 * (`POST /api/orders` on an account that uses a saved key on that venue), against the signed order alone
 * straight to the double; and a rule bound to the key, from a headline posted to the webhook to the order
 * the venue's double accepted, as the bench sees it appear (polled every millisecond).
 */
const ORDERS = Number(process.env.BENCH_VENUE_ORDERS ?? 120);
const RULE_HEADLINES = Number(process.env.BENCH_VENUE_HEADLINES ?? 30);
const INGEST = 'bench-ingest-token-0123456789abcdef';

interface Venue {
  name: string;
  start(): Promise<VenueDouble>;
  /** One signed market order straight to the double, as the adapter would send it. */
  direct(double: VenueDouble, key: { apiKey: string; secret: string }): (n: number) => Promise<unknown>;
}

const VENUES: Venue[] = [
  {
    name: 'binance',
    start: startBinanceVenueDouble,
    direct(double, key) {
      const client = new BinanceClient({ baseUrl: double.url });
      return (n) =>
        client.signed(
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
    },
  },
  {
    name: 'bybit',
    start: startBybitDouble,
    direct(double, key) {
      // Above the adapter's own budget of 10 orders a second, so that the figure is the call's, not a wait.
      const client = new BybitClient({ baseUrl: double.url, orderBudget: { perWindow: 1_000_000 } });
      return (n) =>
        client.signed(
          'POST',
          '/v5/order/create',
          {
            category: 'linear',
            symbol: 'BTCUSDT',
            side: n % 2 === 0 ? 'Buy' : 'Sell',
            orderType: 'Market',
            qty: '0.004',
            orderLinkId: `bench-${n}`,
          },
          key,
        );
    },
  },
  {
    name: 'okx',
    start: startOkxDouble,
    direct(double, key) {
      // Above the adapter's own budget of 60 orders per 2 s per instrument, as for Bybit.
      const client = new OkxClient({ baseUrl: double.url, orderBudget: { perWindow: 1_000_000 } });
      const creds = { ...key, passphrase: BENCH_PASSPHRASE };
      // One contract of BTC-USDT-SWAP is 0.01 BTC.
      return (n) =>
        client.signed(
          'POST',
          '/api/v5/trade/order',
          {
            instId: 'BTC-USDT-SWAP',
            tdMode: 'cross',
            side: n % 2 === 0 ? 'buy' : 'sell',
            ordType: 'market',
            sz: '1',
            clOrdId: `bench${n}`,
          },
          creds,
        );
    },
  },
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

const headline = (venue: string, n: number) =>
  `Fund ${venue} ${n} buys ${1000 + n * 37} BTC, filing ${n} of ${venue} shows`;

const wanted = process.env.BENCH_VENUES?.split(',');
for (const venue of VENUES.filter((v) => wanted === undefined || wanted.includes(v.name))) {
  const double = await venue.start();
  const bench = await startVenueBench(`v${venue.name}`, double, {
    NEWS_SOURCES: 'webhook',
    INGEST_TOKEN: INGEST,
  });
  const { call, base, key, keyId } = bench;
  try {
    const order = (n: number) => ({
      symbol: 'BTC/USDT',
      side: n % 2 === 0 ? 'long' : 'short',
      type: 'market',
      amount: 250,
    });
    // Warm-up: caches, connections, JIT. Bybit takes 10 orders a second per symbol, OKX 60 per 2 s: the
    // bench keeps under each, so that the figure is the order path's, not the budget's waits.
    const spacing = venue.name === 'bybit' ? 110 : venue.name === 'okx' ? 40 : 0;
    for (let n = 0; n < 10; n++) await call('POST', '/api/orders', order(n), randomUUID());
    const latencies: number[] = [];
    let failed = 0;
    for (let n = 0; n < ORDERS; n++) {
      if (spacing > 0) await new Promise((r) => setTimeout(r, spacing));
      const started = performance.now();
      const res = await call('POST', '/api/orders', order(n), randomUUID());
      latencies.push(performance.now() - started);
      if (res.status !== 200) failed += 1;
    }
    latencies.sort((a, b) => a - b);
    report('venues', `${venue.name}_http_round_trip_p50`, percentile(latencies, 0.5), 'ms');
    report('venues', `${venue.name}_http_round_trip_p99`, percentile(latencies, 0.99), 'ms');
    report('venues', `${venue.name}_http_failed`, failed, 'orders');

    const send = venue.direct(double, key);
    const direct: number[] = [];
    for (let n = 0; n < ORDERS; n++) {
      if (spacing > 0) await new Promise((r) => setTimeout(r, spacing));
      const started = performance.now();
      await send(n);
      direct.push(performance.now() - started);
    }
    direct.sort((a, b) => a - b);
    report('venues', `${venue.name}_signed_order_alone_p50`, percentile(direct, 0.5), 'ms');
    report('venues', `${venue.name}_signed_order_alone_p99`, percentile(direct, 0.99), 'ms');

    const risk = await call('PUT', '/api/rules/risk', {
      cooldown_minutes: 0,
      live_daily_budget_usd: 10_000_000,
      daily_budget_usd: 10_000_000,
    });
    if (risk.status !== 200) throw new Error(`risk not set: ${JSON.stringify(risk.json)}`);
    const rule = await call('POST', '/api/rules/', {
      ruleName: `bench ${venue.name} BTC`,
      conditions: { asset: 'BTC' },
      action: { type: 'trade', side: 'long', amount_usd: 250, account: keyId },
    });
    if (rule.status !== 201) throw new Error(`rule not saved: ${JSON.stringify(rule.json)}`);
    const newsToAck: number[] = [];
    let missed = 0;
    for (let n = 0; n < RULE_HEADLINES; n++) {
      const before = double.orders(key.apiKey).length;
      const sent = performance.now();
      const res = await fetch(`${base}/api/signals/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: headline(venue.name, n), source_name: `Bench wire ${n}` }),
      });
      if (res.status !== 202) throw new Error(`ingest ${res.status}`);
      const deadline = performance.now() + 5_000;
      while (double.orders(key.apiKey).length === before && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1));
      }
      if (double.orders(key.apiKey).length === before) missed += 1;
      else newsToAck.push(performance.now() - sent);
      await new Promise((r) => setTimeout(r, 250));
    }
    newsToAck.sort((a, b) => a - b);
    report('venues', `${venue.name}_rule_news_to_ack_p50`, percentile(newsToAck, 0.5), 'ms');
    report('venues', `${venue.name}_rule_news_to_ack_p99`, percentile(newsToAck, 0.99), 'ms');
    report('venues', `${venue.name}_rule_headlines_without_order`, missed, 'headlines');
  } finally {
    await bench.close();
  }
}
