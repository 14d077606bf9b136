import { z } from 'zod';
import type { RiskSettings, RiskState } from '../../contracts/rules';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { table } from '../../services/terminal/table';
import { unwrap } from '../errors';
import { parseAmount } from '../grammar/order';
import { defineCommand } from '../types';
import { utcTime } from '../../services/time';
import { rulesApiOf } from './rulesShared';

/** The risk envelope's commands: they sit with the rules in `help`, since they bound what rules may do. */
const AREA = 'rules';

/** `50,000 (5 × your 10,000 paper balance)`: the maximum order and where the figure comes from. */
export function maxOrderText(risk: RiskState): string {
  const figure = risk.max_order_usd.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return risk.max_order_basis === undefined ? figure : `${figure} (${risk.max_order_basis})`;
}

/** One line on whether automated trading runs, and how much of today's budget it has used. */
export function riskLine(risk: RiskState): OutputLine {
  if (risk.kill_switch) {
    const until = risk.resume_at === null ? '' : ` until ${utcTime(risk.resume_at)}`;
    return failure(`Automated trading is OFF${until} (rules on to resume).`);
  }
  return info(
    `Automated trading is on. Today ${risk.spent_today_usd} of ${risk.daily_budget_usd} USDT; ` +
      `max order ${maxOrderText(risk)}, ${risk.max_positions} positions opened by rules, cooldown ${risk.cooldown_minutes} min.`,
  );
}

/** `risk set` field names as typed, and the settings they change. */
export const RISK_FIELDS = {
  'max-order': 'max_order_usd',
  budget: 'daily_budget_usd',
  positions: 'max_positions',
  cooldown: 'cooldown_minutes',
  'max-age': 'max_age_seconds',
  'live-max-order': 'live_max_order_usd',
  'live-budget': 'live_daily_budget_usd',
} as const satisfies Record<string, keyof RiskSettings>;

export const riskShow = defineCommand({
  name: 'risk',
  area: AREA,
  summary: 'Your risk envelope: max order (every order), daily budget, positions, cooldown, signal age.',
  usage: 'risk',
  examples: ['risk'],
  args: z.object({}),
  loginRequired: true,
  async run(ctx) {
    const r = unwrap(await rulesApiOf(ctx).risk());
    return {
      lines: [
        riskLine(r),
        ...table(
          [{ header: 'SETTING' }, { header: 'VALUE', align: 'right' }, { header: 'CHANGE WITH' }],
          [
            ['max order (every order)', `${r.max_order_usd} USDT`, 'risk set max-order <usdt>'],
            ['daily budget (rules)', `${r.daily_budget_usd} USDT`, 'risk set budget <usdt>'],
            ['max positions opened by rules', String(r.max_positions), 'risk set positions <n>'],
            ['cooldown per asset', `${r.cooldown_minutes} min`, 'risk set cooldown <minutes>'],
            ['max signal age', `${r.max_age_seconds} s`, 'risk set max-age <seconds>'],
            ['live max order (rules)', `${r.live_max_order_usd} USDT`, 'risk set live-max-order <usdt>'],
            [
              'live daily budget (rules)',
              `${r.live_spent_today_usd} of ${r.live_daily_budget_usd} USDT`,
              'risk set live-budget <usdt>',
            ],
          ],
        ),
        ...(r.max_order_saved === false
          ? [muted(`The max order is ${maxOrderText(r)}; risk set max-order <usdt> sets your own.`)]
          : []),
      ],
      data: r,
    };
  },
});

export const riskSet = defineCommand({
  name: 'risk set',
  area: AREA,
  summary: 'Change one risk setting.',
  usage: 'risk set <setting> <value>',
  examples: ['risk set max-order 5k', 'risk set budget 2000', 'risk set cooldown 30'],
  args: z.object({
    setting: z.enum(Object.keys(RISK_FIELDS) as [keyof typeof RISK_FIELDS], {
      error: `The setting is one of ${Object.keys(RISK_FIELDS).join(', ')}.`,
    }),
    value: z.string(),
  }),
  complete: { setting: () => Object.keys(RISK_FIELDS) },
  loginRequired: true,
  async run(ctx, { setting, value }) {
    const amount = parseAmount(value);
    if (amount === null) return [failure('The value is a number above 0, e.g. 500 or 5k.')];
    const saved = unwrap(await rulesApiOf(ctx).saveRisk({ [RISK_FIELDS[setting]]: amount }));
    return {
      lines: [success(`Risk setting ${setting} is now ${value}.`), riskLine(saved)],
      data: saved,
    };
  },
});

export default [riskShow, riskSet];
