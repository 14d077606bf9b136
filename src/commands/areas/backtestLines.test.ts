import { describe, expect, it } from 'vitest';
import type { BacktestResult } from '../../contracts/rules';
import { recordedRule } from '../../services/rules/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

const RULE = recordedRule('rule add sol');

/** What the server answers a default backtest on two hours of stored news. */
const RESULT: BacktestResult = {
  rule_id: RULE.id,
  rule_name: RULE.ruleName,
  days: 0.08,
  covers: '2 hours',
  hold_minutes: 30,
  cooldown_minutes: 15,
  cooldown_skipped: 1,
  signals_seen: 6,
  history_days: 0.08,
  trades: [
    {
      signal_id: '1',
      at: '2026-12-03T05:00:00.000Z',
      asset: 'SOL',
      side: 'long',
      entry: 150.03,
      exit: 150.9,
      exit_reason: 'hold',
      pnl_usd: 1.1,
    },
  ],
  win_rate: 1,
  pnl_usd: 1.1,
  max_drawdown_usd: 0,
  equity: [0, 1.1],
  note: 'The news stored here covers 2 hours; the backtest ran on all of it.',
  price_source: 'simulated prices, 1m candles',
};

function session() {
  const s = createTestConsole({ token: 'tok' });
  s.server.on('GET /rules/', () => ({ status: 200, body: [RULE] }));
  s.server.on(`POST /rules/${RULE.id}/backtest`, () => ({ status: 200, body: RESULT }));
  return s;
}

describe('rules test', () => {
  it('asks for the stored history by default, and names the rule and the period in words', async () => {
    const s = session();
    const out = await s.type(`rules test ${RULE.id.slice(0, 8)}`);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ hold_minutes: 30 });
    expect(out[0]).toBe(
      'info: SOL good news: 1 trade over 2 hours (30 min hold, simulated prices, 1m candles): ' +
        'win rate 100%, PnL 1.10 USDT, max drawdown 0.00 USDT.',
    );
    expect(out.at(-1)).toBe('muted: The news stored here covers 2 hours; the backtest ran on all of it.');
  });

  it('sends the days when asked for', async () => {
    const s = session();
    await s.type(`rules test ${RULE.id.slice(0, 8)} --days 7 --hold 2h`);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ days: 7, hold_minutes: 120 });
  });
});
