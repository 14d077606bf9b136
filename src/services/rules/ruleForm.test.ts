import { describe, expect, it } from 'vitest';
import type { Rule } from '../../contracts/rules';
import { bodyOf, EMPTY_RULE_FORM, formOf } from './ruleForm';

describe('rule form words', () => {
  it('sends the comma lists as words, leaves blank ones out, and shows a rule’s words again', () => {
    const done = bodyOf({
      ...EMPTY_RULE_FORM,
      ruleName: 'Listings',
      include: 'listing, list* ,',
      exclude: '',
    });
    expect(done.ok && done.body.conditions).toEqual({
      sentiment: 'positive',
      min_impact: 70,
      max_impact: 100,
      include: ['listing', 'list*'],
    });
    const rule = {
      id: 'r1',
      ruleName: 'Listings',
      conditions: { include: ['listing', 'spot etf'], exclude: ['perpetual'] },
      action: { type: 'trade', side: 'long', amount_usd: 100, account: 'paper' },
      isActive: true,
      version: 1,
      created_at: new Date(0).toISOString(),
    } satisfies Rule;
    expect(formOf(rule)).toMatchObject({ include: 'listing, spot etf', exclude: 'perpetual' });
  });

  it('says what is wrong with a list, as the server would', () => {
    const long = bodyOf({ ...EMPTY_RULE_FORM, ruleName: 'x', exclude: 'y'.repeat(61) });
    expect(long).toEqual({ ok: false, message: 'Each exclude word or phrase must be 1 to 60 characters.' });
  });
});
