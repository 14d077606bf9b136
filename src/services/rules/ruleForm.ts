import { joinSentences } from '../api/errors';
import { RuleCreate, type Rule } from '../../contracts/rules';

/** The add/edit form's fields, as text the way inputs hold them. */
export interface RuleFormFields {
  ruleName: string;
  asset: string;
  sentiment: '' | 'positive' | 'negative' | 'neutral';
  minImpact: string;
  maxImpact: string;
  /** Comma-separated words or phrases: one must be in the headline (blank: any). */
  include: string;
  /** Comma-separated words or phrases none of which may be. */
  exclude: string;
  side: 'long' | 'short';
  amount: string;
  takeProfit: string;
  stopLoss: string;
  maxHold: string;
  isActive: boolean;
  /** `auto` trades on a match; `ask` proposes the order and waits `askWindow` seconds for an answer. */
  mode: 'auto' | 'ask';
  askWindow: string;
}

export const EMPTY_RULE_FORM: RuleFormFields = {
  ruleName: '',
  asset: '',
  sentiment: 'positive',
  minImpact: '70',
  maxImpact: '100',
  include: '',
  exclude: '',
  side: 'long',
  amount: '100',
  takeProfit: '',
  stopLoss: '',
  maxHold: '',
  isActive: true,
  mode: 'auto',
  askWindow: '60',
};

const numberOrBlank = (text: string): number | '' => (text.trim() === '' ? '' : Number(text));

/** The form of an existing rule, for editing. */
export function formOf(rule: Rule): RuleFormFields {
  const c = rule.conditions;
  const e = rule.action.exit ?? {};
  const text = (v: number | undefined) => (v === undefined ? '' : String(v));
  return {
    ruleName: rule.ruleName,
    asset: c.asset ?? '',
    sentiment: c.sentiment ?? '',
    minImpact: text(c.min_impact),
    maxImpact: text(c.max_impact),
    include: (c.include ?? []).join(', '),
    exclude: (c.exclude ?? []).join(', '),
    side: rule.action.side,
    amount: String(rule.action.amount_usd),
    takeProfit: text(e.take_profit_pct),
    stopLoss: text(e.stop_loss_pct),
    maxHold: text(e.max_hold_minutes),
    isActive: rule.isActive,
    mode: rule.mode ?? 'auto',
    askWindow: String(rule.ask_window_sec ?? 60),
  };
}

/**
 * The request body of the form, checked by the same contract as the server (so the messages are the
 * server's), or the messages joined as the spec joins a detail list.
 */
export function bodyOf(f: RuleFormFields): { ok: true; body: RuleCreate } | { ok: false; message: string } {
  const parsed = RuleCreate.safeParse({
    ruleName: f.ruleName,
    conditions: {
      asset: f.asset,
      sentiment: f.sentiment,
      min_impact: numberOrBlank(f.minImpact),
      max_impact: numberOrBlank(f.maxImpact),
      include: f.include,
      exclude: f.exclude,
    },
    action: {
      type: 'trade',
      side: f.side,
      amount_usd: f.amount.trim() === '' ? undefined : Number(f.amount),
      exit: {
        take_profit_pct: numberOrBlank(f.takeProfit),
        stop_loss_pct: numberOrBlank(f.stopLoss),
        max_hold_minutes: numberOrBlank(f.maxHold),
      },
    },
    isActive: f.isActive,
    mode: f.mode,
    ask_window_sec: f.askWindow.trim() === '' ? undefined : Number(f.askWindow),
  });
  if (parsed.success) return { ok: true, body: parsed.data };
  return { ok: false, message: joinSentences(parsed.error.issues.map((i) => i.message)) };
}

/** SVG polyline points of an equity curve in a `width`×`height` box (the backtest's small chart). */
export function curvePoints(equity: readonly number[], width: number, height: number): string {
  if (equity.length < 2) return '';
  const lo = Math.min(...equity);
  const hi = Math.max(...equity);
  const span = hi - lo || 1;
  return equity
    .map((v, i) => {
      const x = (i / (equity.length - 1)) * width;
      const y = height - ((v - lo) / span) * height;
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}
