import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AnswerBook } from '../helpers/answers';
import { startTestApp, type TestApp } from '../helpers/app';
import { useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/**
 * The browser's rules tests answer with what this server really says: this test asks the running app
 * (in-process, on PGlite) what the rules commands ask, in the order a session would, and compares its
 * answers with `src/services/rules/testing/server-answers.json`. `npm run fixtures:rules` records them
 * again (after a change of wording or shape, which this test then reports).
 */
const FILE = path.resolve(import.meta.dirname, '../../src/services/rules/testing/server-answers.json');

describe('recorded rules answers (pglite)', () => {
  const target = useDatabase('pglite');
  let t: TestApp;
  let book: AnswerBook;

  beforeAll(async () => {
    t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000' });
    book = new AnswerBook(t.app, FILE, 'fixtures:rules');
    const auth = await signUpAndLogIn(t.app, 'rules-recorder');
    await book.ask('rules none', auth, 'GET', '/rules/');
    await book.ask('risk', auth, 'GET', '/rules/risk');
    // `rule add sol positive 70-100 long 500 "SOL good news" --tp 3 --sl 2 --hold 2h`
    const sol = await book.ask<{ id: string }>('rule add sol', auth, 'POST', '/rules/', {
      ruleName: 'SOL good news',
      conditions: { asset: 'sol', sentiment: 'positive', min_impact: 70, max_impact: 100 },
      action: {
        type: 'trade',
        side: 'long',
        amount_usd: 500,
        exit: { take_profit_pct: 3, stop_loss_pct: 2, max_hold_minutes: 120 },
        account: 'paper',
      },
      isActive: true,
    });
    // `rule add any any any short 1k --off`
    await book.ask('rule add any', auth, 'POST', '/rules/', {
      ruleName: 'Any any short',
      conditions: {},
      action: { type: 'trade', side: 'short', amount_usd: 1000, exit: {}, account: 'paper' },
      isActive: false,
    });
    await book.ask('rules two', auth, 'GET', '/rules/');
    await book.ask('rules off for 2h', auth, 'POST', '/rules/kill-switch', {
      on: true,
      resume_in_minutes: 120,
    });
    await book.ask('rules on', auth, 'POST', '/rules/kill-switch', { on: false });
    await book.ask('risk set max-order 5k', auth, 'PUT', '/rules/risk', { max_order_usd: 5000 });
    await book.ask('promotion to paper', auth, 'GET', `/rules/${sol.id}/promotion?account=paper`);
    await book.ask('rule paper', auth, 'POST', `/rules/${sol.id}/account`, { account: 'paper' });
    await book.ask('gap', auth, 'GET', `/rules/${sol.id}/gap`);
    await book.ask('flatten', auth, 'POST', '/rules/flatten');
    await book.ask('rule unknown', auth, 'GET', '/rules/00000000-0000-4000-8000-000000000000/gap');
    await book.save();
  });
  afterAll(() => t.close());

  it('are what the server answers now (same shapes, same words)', async () => {
    await book.expectCurrent();
  });
});
