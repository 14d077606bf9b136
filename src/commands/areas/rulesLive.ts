import { z } from 'zod';
import type { GapReport, PromotionReport } from '../../contracts/rules';
import { shortId } from '../../services/rules/rules';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { unwrap } from '../errors';
import { defineCommand } from '../types';
import { ruleById, ruleIds, rulesApiOf } from './rulesShared';

const AREA = 'rules';

const pct = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v * 100)}%`);
const bps = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(1)} bps`);

/** The promotion report as the terminal shows it: the paper record, the backtest, the venue, the limits. */
export function promotionText(r: PromotionReport): string[] {
  const skips = Object.entries(r.paper.skipped)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const venue = r.mode === 'live' ? `LIVE key ${r.key_hint ?? r.account}` : `${r.mode} ${r.key_hint ?? ''}`;
  return [
    `Going to ${venue}: ${r.mode === 'live' ? 'real funds' : 'simulated funds'}.`,
    `Paper record: ${r.paper.fired} fired${skips === '' ? '' : `, skipped ${skips}`}; ` +
      `PnL ${r.paper.pnl_usd} USDT over ${r.paper.closed} closed; ` +
      `hit rate ${pct(r.paper.hit_rate_5m)} at +5 min, ${pct(r.paper.hit_rate_30m)} at +30 min.`,
    `Backtest (${r.backtest.covers ?? `${r.backtest.days} days`}): ${r.backtest.trades} trades, win rate ${pct(r.backtest.win_rate)}, ` +
      `PnL ${r.backtest.pnl_usd} USDT, max drawdown ${r.backtest.max_drawdown_usd} USDT.`,
    `On the venue: ${r.venue.order}` +
      (r.venue.min_notional === null ? '' : `; minimum ${r.venue.min_notional} USDT`) +
      (r.venue.fee_rate === null ? '' : `; taker fee ${(r.venue.fee_rate * 100).toFixed(3)}%`) +
      '.',
    `Live limits: max order ${r.limits.live_max_order_usd} USDT, daily budget ${r.limits.live_daily_budget_usd} USDT (risk set).`,
  ];
}

/** The reality gap as the terminal prints it. */
export function gapLines(g: GapReport): OutputLine[] {
  if (g.decisions === 0)
    return [muted('No decisions on a key yet: the gap shows once the rule trades live or on demo.')];
  const lines = [
    info(
      `${g.fired} of ${g.decisions} decisions on keys filled; slippage ${bps(g.slippage_vs_twin_bps)} against paper, ` +
        `${bps(g.slippage_vs_arrival_bps)} against the price at the news.`,
    ),
    info(
      `Fees ${g.fees_usd} USDT (paper would have paid ${g.twin_fees_usd}); filled ${pct(g.fill_ratio)} of the amounts; ` +
        `latency p50 ${g.latency_p50_ms ?? 'n/a'} ms, p95 ${g.latency_p95_ms ?? 'n/a'} ms.`,
    ),
  ];
  for (const r of g.refused_live_not_paper) {
    lines.push(muted(`Refused on the key, taken on paper: signal ${r.signal_id}: ${r.detail}`));
  }
  return lines;
}

const LiveArgs = z.object({
  id: z.string().min(1).describe('a rule id as rules lists it'),
  key: z.string().optional().describe('the key id (default: the key manual trading uses)'),
});

export const ruleLive = defineCommand({
  name: 'rule live',
  area: AREA,
  summary: "Move a rule's orders to one of your keys, after its promotion report (asks first).",
  usage: 'rule live <id> [key]',
  examples: ['rule live 3f2a9c1d', 'rule live 3f2a9c1d 7c0e…'],
  args: LiveArgs,
  complete: { id: ruleIds },
  loginRequired: true,
  async run(ctx, { id, key }) {
    const rule = unwrap(await ruleById(ctx, id));
    const account = key ?? ctx.stores.account.state.peek()?.account ?? 'paper';
    if (account === 'paper') {
      return [
        failure('Name a key: rule live <id> <key id> (keys lists them), or choose one with account use.'),
      ];
    }
    const report = unwrap(await rulesApiOf(ctx).promotion(rule.id, account));
    const shown = promotionText(report);
    const answer = await ctx.stores.terminal.ask({
      label: `${shown.join('\n')}\nSend rule ${shortId(rule.id)} (${rule.ruleName}) to this key? [y/N] `,
      secret: false,
    });
    if (answer === null || !/^y(es)?$/i.test(answer.trim())) {
      return [...shown.map((l) => info(l)), muted('Left on its account.')];
    }
    const moved = unwrap(await rulesApiOf(ctx).setAccount(rule.id, account));
    return {
      lines: [
        success(
          `Rule ${shortId(moved.id)} now trades on ${report.mode.toUpperCase()} key ${report.key_hint ?? account}.`,
        ),
      ],
      data: moved,
    };
  },
});

export const rulePaper = defineCommand({
  name: 'rule paper',
  area: AREA,
  summary: "Move a rule's orders back to the paper exchange.",
  usage: 'rule paper <id>',
  examples: ['rule paper 3f2a9c1d'],
  args: z.object({ id: z.string().min(1).describe('a rule id as rules lists it') }),
  complete: { id: ruleIds },
  loginRequired: true,
  async run(ctx, { id }) {
    const rule = unwrap(await ruleById(ctx, id));
    const moved = unwrap(await rulesApiOf(ctx).setAccount(rule.id, 'paper'));
    return { lines: [success(`Rule ${shortId(moved.id)} now trades on paper.`)], data: moved };
  },
});

export const rulesGap = defineCommand({
  name: 'rules gap',
  area: AREA,
  summary:
    "A rule's reality gap: its fills on keys against what paper would have done, and the news's price.",
  usage: 'rules gap <id>',
  examples: ['rules gap 3f2a9c1d'],
  args: z.object({ id: z.string().min(1).describe('a rule id as rules lists it') }),
  complete: { id: ruleIds },
  loginRequired: true,
  async run(ctx, { id }) {
    const rule = unwrap(await ruleById(ctx, id));
    const gap = unwrap(await rulesApiOf(ctx).gap(rule.id));
    return { lines: gapLines(gap), data: gap };
  },
});

export const rulesFlatten = defineCommand({
  name: 'rules flatten',
  area: AREA,
  summary: 'Stop every rule and close every position rules opened, on every account (asks first).',
  usage: 'rules flatten',
  examples: ['rules flatten'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const answer = await ctx.stores.terminal.ask({
      label: 'Stop every rule and close every position rules opened, on every account? [y/N] ',
      secret: false,
    });
    if (answer === null || !/^y(es)?$/i.test(answer.trim())) return [muted('Nothing was closed.')];
    const done = unwrap(await rulesApiOf(ctx).flatten());
    const lines: OutputLine[] = [
      success(
        `Automated trading is OFF. Closed ${done.closed} position${done.closed === 1 ? '' : 's'} rules opened` +
          (done.gone === 0 ? '.' : `; ${done.gone} had been closed by hand.`),
      ),
    ];
    for (const f of done.failed) lines.push(failure(`Not closed: ${f}`));
    return { lines, data: done };
  },
});

export default [ruleLive, rulePaper, rulesGap, rulesFlatten];
