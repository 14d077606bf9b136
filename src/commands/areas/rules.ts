import { z } from 'zod';
import { keywordFlags } from './keywordFlags';
import { RuleSentiment, SENTIMENTS, type Decision } from '../../contracts/rules';
import { describeRule, latencyText, outcomeText, shortId } from '../../services/rules/rules';
import { failure, info, muted, success, type OutputLine } from '../../services/terminal/output';
import { sideStyle, table } from '../../services/terminal/table';
import { unwrap } from '../errors';
import { parseAmount } from '../grammar/order';
import { SIDE_WORDS, tickers } from '../providers';
import { defineCommand, type CompletionProvider } from '../types';
import { riskLine } from './risk';
import { backtestLines } from './backtestLines';
import { ruleById, ruleIds, rulesApiOf } from './rulesShared';

const AREA = 'rules';

const ruleAddWords: CompletionProvider = ({ before }) => {
  if (before.length === 0) return ['any', ...tickers()];
  if (before.length === 1) return ['any', ...SENTIMENTS];
  if (before.length === 2) return ['0-100', '50-100', '70-100', '80-100'];
  if (before.length === 3) return [...SIDE_WORDS];
  return [];
};

const Pct = (what: string) =>
  z.coerce
    .number({ error: `${what} is a percentage, e.g. 3 for 3%.` })
    .gt(0, { error: `${what} must be above 0%.` })
    .optional();

/** `30m`, `2h`, `1d` or plain minutes → minutes. */
export function parseMinutes(text: string): number | null {
  const m = /^(\d+)([mhd]?)$/i.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? '').toLowerCase();
  const minutes = unit === 'h' ? n * 60 : unit === 'd' ? n * 1440 : n;
  return minutes > 0 ? minutes : null;
}

/** `70-100` → [70, 100]; `any` → []; else a message. */
export function parseRange(text: string): { min?: number; max?: number } | string {
  if (text.toLowerCase() === 'any') return {};
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (!m) return `Impact range looks like 70-100, not '${text}'.`;
  const [min, max] = [Number(m[1]), Number(m[2])];
  if (max > 100 || min > max) return 'Impact range goes from 0 to 100, low end first.';
  return { min, max };
}

export const ruleAdd = defineCommand({
  name: 'rule add',
  area: AREA,
  summary: 'Add an auto-trade rule: when a matching signal arrives, open a position.',
  usage: 'rule add <asset> <sentiment> <range> <side> <amount> [name...]',
  examples: [
    'rule add sol positive 70-100 long 500 "SOL good news"',
    'rule add any negative 80-100 short 1k --sl 2 --tp 4',
    'rule add btc any any long 250 --hold 30m',
    'rule add btc positive 80-100 long 200 --ask --window 90',
    'rule add any positive any long 300 --include "listing,list*" --exclude perpetual',
  ],
  options: [
    { flags: '--tp <pct>', description: 'take profit at this gain, in %' },
    { flags: '--sl <pct>', description: 'stop loss at this loss, in %' },
    { flags: '--hold <time>', description: 'close after this long (30m, 2h, 1d)' },
    { flags: '--off', description: 'save it turned off' },
    { flags: '--ask', description: 'ask first: propose each order and wait for your answer' },
    { flags: '--window <seconds>', description: 'how long a proposal waits (10-600 s, default 60)' },
    {
      flags: '--include <words>',
      description: 'only headlines with one of these words or phrases (comma-separated; list* for a prefix)',
    },
    { flags: '--exclude <words>', description: 'never headlines with any of these words or phrases' },
  ],
  args: z.object({
    asset: z.string().describe('a ticker, or any for the signal’s first asset'),
    sentiment: z.string().describe('positive, negative, neutral or any'),
    range: z.string().describe('impact range such as 70-100, or any'),
    side: z.enum(SIDE_WORDS, { error: "Side must be 'long' or 'short'." }),
    amount: z.string().describe('USDT total, k for thousands'),
    name: z.array(z.string()).optional(),
    tp: Pct('Take profit'),
    sl: Pct('Stop loss'),
    hold: z.string().optional(),
    off: z.boolean().optional(),
    ask: z.boolean().optional(),
    window: z.coerce
      .number({ error: 'The window is a whole number of seconds from 10 to 600.' })
      .int({ error: 'The window is a whole number of seconds from 10 to 600.' })
      .min(10, { error: 'The window is a whole number of seconds from 10 to 600.' })
      .max(600, { error: 'The window is a whole number of seconds from 10 to 600.' })
      .optional(),
    include: z.string().optional(),
    exclude: z.string().optional(),
  }),
  complete: { asset: ruleAddWords, sentiment: ruleAddWords, range: ruleAddWords, side: ruleAddWords },
  loginRequired: true,
  async run(ctx, a) {
    const range = parseRange(a.range);
    if (typeof range === 'string') return [failure(range)];
    const amount = parseAmount(a.amount);
    if (amount === null) return [failure('Trade amount must be a number above 0, e.g. 500 or 1k.')];
    const hold = a.hold === undefined ? undefined : parseMinutes(a.hold);
    if (hold === null) return [failure('Hold looks like 30m, 2h or 1d.')];
    const asset = a.asset.toLowerCase() === 'any' ? undefined : a.asset;
    const said = a.sentiment.toLowerCase();
    const parsed = RuleSentiment.safeParse(said);
    if (said !== 'any' && !parsed.success)
      return [failure('Sentiment must be positive, negative, neutral or any.')];
    const sentiment = parsed.success ? parsed.data : undefined;
    const name =
      a.name?.join(' ').trim() || [asset?.toUpperCase() ?? 'Any', sentiment ?? 'any', a.side].join(' ');
    const words = keywordFlags(a.include, a.exclude);
    if (typeof words === 'string') return [failure(words)];
    const exit = { take_profit_pct: a.tp, stop_loss_pct: a.sl, max_hold_minutes: hold };
    const created = await rulesApiOf(ctx).create({
      ruleName: name,
      conditions: {
        asset,
        sentiment,
        min_impact: range.min,
        max_impact: range.max,
        ...(words.include.length > 0 ? { include: words.include } : {}),
        ...(words.exclude.length > 0 ? { exclude: words.exclude } : {}),
      },
      action: { type: 'trade', side: a.side, amount_usd: amount, exit, account: 'paper' },
      isActive: a.off !== true,
      ...(a.ask === true ? { mode: 'ask' as const } : {}),
      ...(a.window === undefined ? {} : { ask_window_sec: a.window }),
    });
    const r = unwrap(created);
    return {
      lines: [
        success(
          `Rule ${shortId(r.id)} saved${r.isActive ? '' : ' (off)'}: ${r.ruleName} — ${describeRule(r)}`,
        ),
      ],
      data: r,
    };
  },
});

export const rulesList = defineCommand({
  name: 'rules',
  area: AREA,
  summary: 'List your auto-trade rules and whether automated trading is on.',
  usage: 'rules',
  examples: ['rules', 'rules --open'],
  options: [{ flags: '--open', description: 'open the Trade Rules window as well' }],
  args: z.object({ open: z.boolean().optional() }),
  loginRequired: true,
  async run(ctx, { open }) {
    if (open === true) ctx.stores.rules.openModal();
    const [loaded, risk] = await Promise.all([rulesApiOf(ctx).load(), rulesApiOf(ctx).risk()]);
    const rules = unwrap(loaded);
    const lines: OutputLine[] = risk.ok ? [riskLine(risk.value)] : [];
    if (rules.length === 0) {
      lines.push(muted('No rules yet. Add one: rule add sol positive 70-100 long 500 "SOL good news"'));
      return { lines, data: [] };
    }
    lines.push(
      ...table(
        [{ header: 'ID' }, { header: 'ON' }, { header: 'MODE' }, { header: 'NAME' }, { header: 'WHEN → DO' }],
        rules.map((r) => [
          shortId(r.id),
          r.isActive ? 'on' : 'off',
          r.mode === 'ask' ? `ask ${r.ask_window_sec ?? 60}s` : 'auto',
          r.ruleName,
          describeRule(r),
        ]),
      ),
    );
    return { lines, data: rules };
  },
});

const IdArg = z.object({ id: z.string().min(1).describe('a rule id as rules lists it') });

function toggle(name: string, isActive: boolean) {
  return defineCommand({
    name,
    area: AREA,
    summary: isActive ? 'Turn one rule on.' : 'Turn one rule off (it stays saved).',
    usage: `${name} <id>`,
    examples: [`${name} 3f2a9c1d`],
    args: IdArg,
    complete: { id: ruleIds },
    loginRequired: true,
    async run(ctx, { id }) {
      const found = unwrap(await ruleById(ctx, id));
      const done = unwrap(await rulesApiOf(ctx).update(found.id, { isActive }));
      return {
        lines: [success(`Rule ${shortId(id)} ${isActive ? 'on' : 'off'}: ${done.ruleName}.`)],
        data: done,
      };
    },
  });
}

export const ruleRm = defineCommand({
  name: 'rule rm',
  area: AREA,
  summary: 'Delete a rule (its ledger rows stay until the rule is gone).',
  usage: 'rule rm <id>',
  examples: ['rule rm 3f2a9c1d'],
  args: IdArg,
  complete: { id: ruleIds },
  loginRequired: true,
  async run(ctx, { id }) {
    const found = unwrap(await ruleById(ctx, id));
    const removed = unwrap(await rulesApiOf(ctx).remove(found.id));
    return {
      lines: [success(`Rule ${shortId(found.id)} deleted: ${found.ruleName}.`)],
      data: { id: removed },
    };
  },
});

function killSwitch(name: string, on: boolean) {
  return defineCommand({
    name,
    area: AREA,
    summary: on
      ? 'Kill switch: stop every automated order now (optionally for a while).'
      : 'Resume automated trading after the kill switch.',
    usage: name,
    examples: on ? ['rules off', 'rules off --for 2h'] : ['rules on'],
    ...(on
      ? { options: [{ flags: '--for <time>', description: 'turn back on by itself after 30m, 2h, 1d…' }] }
      : {}),
    args: z.object({ for: z.string().optional() }),
    loginRequired: true,
    async run(ctx, a) {
      const minutes = a.for === undefined ? undefined : parseMinutes(a.for);
      if (minutes === null) return [failure('The time looks like 30m, 2h or 1d.')];
      const state = unwrap(await rulesApiOf(ctx).killSwitch(on, minutes));
      return { lines: [riskLine(state)], data: state };
    },
  });
}

export const rulesLog = defineCommand({
  name: 'rules log',
  area: AREA,
  summary: 'The decision ledger: every time a rule matched a signal, what it did and why.',
  usage: 'rules log [count]',
  examples: ['rules log', 'rules log 50'],
  args: z.object({
    count: z.coerce
      .number({ error: 'The count is a whole number from 1 to 500.' })
      .int()
      .min(1)
      .max(500)
      .default(20),
  }),
  loginRequired: true,
  async run(ctx, { count }) {
    const rows = unwrap(await rulesApiOf(ctx).ledger(count));
    if (rows.length === 0) return { lines: [muted('No rule has matched a signal yet.')], data: [] };
    return { lines: ledgerTable(rows), data: rows };
  },
});

/** `rules confirm <id>` / `rules reject <id>`: the answer to an ask rule's proposal (toast, prompt, CLI). */
function answerCommand(name: string, yes: boolean) {
  return defineCommand({
    name,
    area: AREA,
    summary: yes
      ? "Confirm an ask rule's proposal: its order goes out if the risk limits still allow it."
      : "Reject an ask rule's proposal: no order is placed.",
    usage: `${name} <id>`,
    examples: [`${name} 42`],
    options: [{ flags: '--via <where>', description: 'where you answered: terminal (default) or browser' }],
    args: z.object({
      id: z
        .string()
        .regex(/^#?\d{1,18}$/, { error: 'The proposal id is the number the prompt shows, e.g. 42.' })
        .describe('the proposal id the prompt and rules log show'),
      via: z.enum(['terminal', 'browser'], { error: 'Via is terminal or browser.' }).default('terminal'),
    }),
    loginRequired: true,
    async run(ctx, { id, via }) {
      const answered = unwrap(
        await rulesApiOf(ctx).answer(id.replace('#', ''), yes ? 'confirm' : 'reject', via),
      );
      const { decision: d, message } = answered;
      const done = d.outcome === 'fired' || d.outcome === 'pending';
      return {
        lines: [
          (done ? success : d.reason === 'rejected' ? info : failure)(
            `rule '${d.rule_name}' on #${d.signal_id}: ${message}`,
          ),
        ],
        data: answered,
      };
    },
  });
}

export function ledgerTable(rows: readonly Decision[]): OutputLine[] {
  return table(
    [
      { header: 'TIME' },
      { header: 'RULE' },
      { header: 'SIGNAL' },
      { header: 'SIDE' },
      { header: 'OUTCOME' },
      { header: 'FILL', align: 'right' },
      { header: 'AFTER THE NEWS' },
      { header: 'WHY / EXIT' },
    ],
    rows.map((d) => [
      d.decided_at.slice(11, 19),
      `${d.rule_name} v${d.rule_version}`,
      `#${d.signal_id} ${d.asset} ${d.sentiment ?? ''} ${d.impact ?? ''}`.trim(),
      { text: d.side.toUpperCase(), style: sideStyle(d.side) },
      {
        text: outcomeText(d),
        style: d.outcome === 'fired' ? 'gain' : d.outcome === 'skipped' ? 'muted' : undefined,
      },
      d.quantity === null || d.notional === null ? '' : `${d.quantity} = ${d.notional.toFixed(2)} USDT`,
      latencyText(d),
      d.outcome === 'skipped'
        ? `${d.reason ?? ''}: ${d.detail ?? ''}`
        : d.outcome === 'asking'
          ? `waiting for your answer: rules confirm ${d.id} / rules reject ${d.id}`
          : (d.exit ?? ''),
    ]),
  );
}

export const rulesTest = defineCommand({
  name: 'rules test',
  area: AREA,
  summary: 'Backtest a rule on the stored signals and prices, with fees and slippage.',
  usage: 'rules test <id>',
  examples: ['rules test 3f2a9c1d', 'rules test 3f2a9c1d --days 7 --hold 2h'],
  options: [
    { flags: '--days <n>', description: 'how far back (default: all the news stored)' },
    { flags: '--hold <time>', description: 'holding time when the rule has no max hold (default 30m)' },
  ],
  args: z.object({
    id: z.string().min(1),
    days: z.coerce
      .number({ error: 'Days is a whole number from 1 to 365.' })
      .int()
      .min(1)
      .max(365)
      .optional(),
    hold: z.string().default('30m'),
  }),
  complete: { id: ruleIds },
  loginRequired: true,
  async run(ctx, a) {
    const hold = parseMinutes(a.hold);
    if (hold === null) return [failure('Hold looks like 30m, 2h or 1d.')];
    const found = unwrap(await ruleById(ctx, a.id));
    const body = { ...(a.days === undefined ? {} : { days: a.days }), hold_minutes: hold };
    const result = unwrap(await rulesApiOf(ctx).backtest(found.id, body));
    return { lines: backtestLines(result), data: result };
  },
});

export default [
  rulesList,
  ruleAdd,
  ruleRm,
  toggle('rule on', true),
  toggle('rule off', false),
  killSwitch('rules off', true),
  killSwitch('rules on', false),
  rulesLog,
  answerCommand('rules confirm', true),
  answerCommand('rules reject', false),
  rulesTest,
];
