import type { Decision } from '../../../contracts/rules';

export const T0 = Date.UTC(2026, 10, 26, 22, 0, 0);

/** A ledger row: rule 'Bad news short' fired SHORT 0.019 ETH on #130, on paper; `over` changes it. */
export const decision = (over: Partial<Decision>): Decision => ({
  id: '1',
  rule_id: 'r1',
  rule_name: 'Bad news short',
  rule_version: 1,
  signal_id: '130',
  asset: 'ETH',
  symbol: 'ETHUSDT',
  side: 'short',
  amount_usd: 60,
  outcome: 'fired',
  reason: null,
  detail: null,
  engine: 'local',
  sentiment: 'negative',
  impact: 80,
  price: 3147.53,
  order_id: 'o1',
  quantity: 0.019,
  notional: 59.8,
  latency_ms: 12,
  exit: null,
  decided_at: new Date(T0 + 5_000).toISOString(),
  account: 'paper',
  account_mode: 'paper',
  account_venue: 'paper',
  fee: 0.03,
  arrival_price: 3147,
  twin: null,
  exit_pnl: null,
  ...over,
});

/** Rule 'BTC ask' proposes LONG 200 USDT BTC on #123, with 60 s to answer; `over` changes it. */
export const askingDecision = (over: Partial<Decision> = {}): Decision =>
  decision({
    id: '7',
    rule_name: 'BTC ask',
    signal_id: '123',
    asset: 'BTC',
    symbol: 'BTCUSDT',
    side: 'long',
    amount_usd: 200,
    outcome: 'asking',
    sentiment: 'positive',
    impact: 82,
    price: null,
    quantity: null,
    order_id: null,
    decided_at: new Date(T0).toISOString(),
    ask_expires_at: new Date(T0 + 60_000).toISOString(),
    answered_via: null,
    ...over,
  });
