import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';

const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN };

describe.each(dbTargets())("a rule's words on %s", (name) => {
  const target = useDatabase(name);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target, ENV);
  });
  afterAll(() => t.close());

  const post = (authorization: string, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/rules/', headers: { authorization }, payload });
  const listingRule = {
    ruleName: 'SOL listings',
    conditions: { asset: 'SOL', include: 'listing, list*', exclude: ['perpetual'] },
    action: { type: 'trade', side: 'long', amount_usd: 150 },
  };

  it('stores the words with the rule, shows them, and changes or drops them on an edit', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'words-store');
    const res = await post(authorization, listingRule);
    expect(res.statusCode).toBe(201);
    const rule = res.json() as Rule;
    expect(rule.conditions).toEqual({ asset: 'SOL', include: ['listing', 'list*'], exclude: ['perpetual'] });
    const patch = (conditions: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/rules/${rule.id}`,
        headers: { authorization },
        payload: { conditions },
      });
    expect(((await patch({ asset: 'SOL', exclude: 'futures' })).json() as Rule).conditions).toEqual({
      asset: 'SOL',
      exclude: ['futures'],
    });
    expect(((await patch({ asset: 'SOL', exclude: '' })).json() as Rule).conditions).toEqual({
      asset: 'SOL',
    });
  });

  it('refuses too many words or a word too long, saying which list', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'words-invalid');
    const many = Array.from({ length: 21 }, (_, i) => `w${i}`).join(',');
    const tooMany = await post(authorization, { ...listingRule, conditions: { include: many } });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json()).toMatchObject({
      detail: [
        { loc: ['body', 'conditions', 'include'], msg: 'Include may hold at most 20 words or phrases.' },
      ],
    });
    const long = await post(authorization, { ...listingRule, conditions: { exclude: ['x'.repeat(61)] } });
    expect(long.statusCode).toBe(422);
    expect(JSON.stringify(long.json())).toContain('Each exclude word or phrase must be 1 to 60 characters.');
  });

  it('fires on a headline with its words, and records nothing for one without or with an excluded word', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'words-engine');
    const plain = await signUpAndLogIn(t.app, 'words-engine-plain');
    expect((await post(authorization, listingRule)).statusCode).toBe(201);
    expect(
      (
        await post(plain.authorization, {
          ...listingRule,
          ruleName: 'any SOL',
          conditions: { asset: 'SOL' },
        })
      ).statusCode,
    ).toBe(201);
    const engine = t.api.rules.engine;
    await engine.reload();
    await engine.evaluate(
      completedSignal({
        id: freshSignalId(),
        assets: ['SOL'],
        content: 'Coinbase lists SOL perpetual futures',
      }),
    );
    await engine.evaluate(
      completedSignal({ id: freshSignalId(), assets: ['SOL'], content: 'SOL rallies 8%' }),
    );
    // The rule without words decided both; the worded one neither (no ledger row, as for a sentiment).
    expect(await ledger(t, authorization)).toEqual([]);
    expect(await ledger(t, plain.authorization)).toHaveLength(2);

    // Through the webhook and the analysis, a headline with the word fires.
    const ingest = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { content: 'Binance will list SOL on its spot market', source_name: 'Binance Announcements' },
    });
    expect(ingest.statusCode).toBe(202);
    const rows = await until(async () => {
      const mine = await ledger(t, authorization);
      return mine.some((r) => r.outcome !== 'pending') ? mine : undefined;
    });
    expect(rows.map((r) => [r.rule_name, r.asset, r.outcome])).toEqual([['SOL listings', 'SOL', 'fired']]);
  });
});
