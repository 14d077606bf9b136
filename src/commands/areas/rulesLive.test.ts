import { describe, expect, it } from 'vitest';
import type { GapReport, PromotionReport } from '../../contracts/rules';
import {
  recordedFlatten,
  recordedGap,
  recordedPromotion,
  recordedRule,
} from '../../services/rules/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

/** The rule as the server answered its creation (on paper). */
const RULE = recordedRule('rule add sol');
const SHORT = RULE.id.slice(0, 8);

/** The server's report for paper, with the record and venue of a rule that has traded, toward a LIVE key. */
const REPORT: PromotionReport = {
  ...recordedPromotion(),
  rule_id: RULE.id,
  account: 'key-1',
  mode: 'live',
  key_hint: 'Live…cdef',
  paper: {
    fired: 4,
    skipped: { cooldown: 2 },
    pnl_usd: 3.2,
    closed: 3,
    hit_rate_5m: 0.75,
    hit_rate_30m: 0.5,
  },
  backtest: { days: 30, trades: 12, win_rate: 0.58, pnl_usd: 41.5, max_drawdown_usd: 9.1 },
  venue: { symbol: 'ETH/USDT', fee_rate: 0.0005, min_notional: 20, order: '0.05 ETH ≈ 150.00 USDT at 3000' },
  limits: { live_max_order_usd: 500, live_daily_budget_usd: 1000 },
};

/** A logged-in console whose questions are answered in order, against a fake rules API. */
function session() {
  const s = createTestConsole({ token: 'tok' });
  const asked: string[] = [];
  let answers: (string | null)[] = [];
  s.stores.terminal.subscribe((event) => {
    if (event.type === 'question' && event.question !== null) {
      asked.push(event.question.label);
      const next = answers.shift() ?? null;
      queueMicrotask(() => s.stores.terminal.answer(next));
    }
  });
  const moves: string[] = [];
  s.server.on('GET /rules/', () => ({ status: 200, body: [RULE] }));
  s.server.on(`GET /rules/${RULE.id}/promotion`, () => ({ status: 200, body: REPORT }));
  s.server.on(`POST /rules/${RULE.id}/account`, (r) => {
    const { account } = JSON.parse(r.body ?? '{}') as { account: string };
    moves.push(account);
    return { status: 200, body: { ...recordedRule('rule paper'), action: { ...RULE.action, account } } };
  });
  return {
    ...s,
    asked,
    moves,
    answering: (line: string, ...given: (string | null)[]) => {
      answers = given;
      return s.type(line);
    },
  };
}

describe('rules going live', () => {
  it('rule live shows the promotion report in its question and moves the rule only on yes', async () => {
    const s = session();
    const no = await s.answering(`rule live ${SHORT} key-1`, 'n');
    expect(s.moves).toEqual([]);
    expect(no.at(-1)).toBe('muted: Left on its account.');
    expect(s.asked[0]).toContain('Going to LIVE key Live…cdef: real funds.');
    expect(s.asked[0]).toContain('Paper record: 4 fired, skipped cooldown 2; PnL 3.2 USDT over 3 closed');
    expect(s.asked[0]).toContain('hit rate 75% at +5 min, 50% at +30 min');
    expect(s.asked[0]).toContain(
      'On the venue: 0.05 ETH ≈ 150.00 USDT at 3000; minimum 20 USDT; taker fee 0.050%.',
    );
    expect(await s.answering(`rule live ${SHORT} key-1`, 'y')).toEqual([
      `success: Rule ${SHORT} now trades on LIVE key Live…cdef.`,
    ]);
    expect(s.moves).toEqual(['key-1']);
    expect(await s.type(`rule paper ${SHORT}`)).toEqual([`success: Rule ${SHORT} now trades on paper.`]);
    expect(s.moves).toEqual(['key-1', 'paper']);
  });

  it('rules flatten asks, then says what it closed and what had been closed by hand', async () => {
    const s = session();
    let flattened = 0;
    s.server.on('POST /rules/flatten', () => {
      flattened += 1;
      return { status: 200, body: { ...recordedFlatten(), closed: 2, gone: 1 } };
    });
    expect(await s.answering('rules flatten', 'n')).toEqual(['muted: Nothing was closed.']);
    expect(flattened).toBe(0);
    expect(await s.answering('rules flatten', 'yes')).toEqual([
      'success: Automated trading is OFF. Closed 2 positions rules opened; 1 had been closed by hand.',
    ]);
    expect(flattened).toBe(1);
  });

  it('rules gap prints the slippage against paper and the news, fees, fill ratio and refusals', async () => {
    const s = session();
    const gap: GapReport = {
      ...recordedGap(),
      rule_id: RULE.id,
      decisions: 3,
      fired: 2,
      slippage_vs_twin_bps: 4.25,
      slippage_vs_arrival_bps: 11,
      fees_usd: 0.15,
      twin_fees_usd: 0.15,
      fill_ratio: 1,
      latency_p50_ms: 41,
      latency_p95_ms: 60,
      refused_live_not_paper: [{ decision_id: '9', signal_id: '113', detail: 'Margin is insufficient.' }],
    };
    s.server.on(`GET /rules/${RULE.id}/gap`, () => ({ status: 200, body: gap }));
    expect(await s.type(`rules gap ${SHORT}`)).toEqual([
      'info: 2 of 3 decisions on keys filled; slippage 4.3 bps against paper, 11.0 bps against the price at the news.',
      'info: Fees 0.15 USDT (paper would have paid 0.15); filled 100% of the amounts; latency p50 41 ms, p95 60 ms.',
      'muted: Refused on the key, taken on paper: signal 113: Margin is insufficient.',
    ]);
  });
});
