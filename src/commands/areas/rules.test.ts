import { describe, expect, it } from 'vitest';
import { RuleCreate, type Decision, type Rule } from '../../contracts/rules';
import { decision } from '../../services/rules/testing/decisions';
import { ledgerTable } from './rules';
import {
  recordedPayload,
  recordedReply,
  recordedRisk,
  recordedRule,
  type RulesAnswer,
} from '../../services/rules/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

const SOL = recordedRule('rule add sol');
const ANY = recordedRule('rule add any');
/** The first eight characters of an id: how the commands name a rule. */
const short = (rule: Rule) => rule.id.slice(0, 8);

/**
 * A console against a fake rules API that replies with what the real server answered to the same
 * requests, and fails a request the server was not asked in the recording.
 */
function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const rules: Rule[] = [];
  const replyTo = (name: RulesAnswer, body: string | null) => {
    expect(body === null ? undefined : JSON.parse(body), `the request of ${name}`).toEqual(
      recordedPayload(name),
    );
    return recordedReply(name);
  };
  s.server.on('GET /rules/', () => ({ status: 200, body: rules }));
  s.server.on('GET /rules/risk', () => recordedReply('risk'));
  s.server.on('POST /rules/', (r) => {
    const name =
      RuleCreate.parse(JSON.parse(r.body ?? '{}')).ruleName === SOL.ruleName
        ? 'rule add sol'
        : 'rule add any';
    const reply = replyTo(name, r.body);
    rules.push(recordedRule(name));
    return reply;
  });
  s.server.on('POST /rules/kill-switch', (r) => {
    const { on } = JSON.parse(r.body ?? '{}') as { on: boolean };
    return replyTo(on ? 'rules off for 2h' : 'rules on', r.body);
  });
  s.server.on('PUT /rules/risk', (r) => replyTo('risk set max-order 5k', r.body));
  return { ...s, rules };
}

/** `HH:MM:SS UTC` of an ISO time, as the commands print it. */
const utcTime = (iso: string | null) => `${new Date(iso ?? '').toISOString().slice(11, 19)} UTC`;

describe('rules commands', () => {
  it('adds a rule from one line, with exits, and lists it', async () => {
    const s = session();
    const out = await s.type('rule add sol positive 70-100 long 500 "SOL good news" --tp 3 --sl 2 --hold 2h');
    expect(out).toEqual([
      `success: Rule ${short(SOL)} saved: SOL good news — SOL positive 70-100 → long 500 USDT (TP 3%, SL 2%, hold 120m)`,
    ]);
    expect(s.rules[0]?.conditions).toEqual({
      asset: 'SOL',
      sentiment: 'positive',
      min_impact: 70,
      max_impact: 100,
    });
    expect(await s.type('rule add any any any short 1k --off')).toEqual([
      `success: Rule ${short(ANY)} saved (off): Any any short — any asset any sentiment any impact → short 1000 USDT`,
    ]);
    const list = await s.type('rules');
    expect(list[0]).toBe(
      'info: Automated trading is on. Today 0 of 5000 USDT; max order 50,000 (5 × your 10,000 paper balance), 5 positions opened by rules, cooldown 15 min.',
    );
    expect(list[2]).toMatch(
      new RegExp(`^info: ${short(SOL)}\\s+on\\s+auto\\s+SOL good news\\s+SOL positive 70-100`),
    );
    expect(list[3]).toMatch(new RegExp(`^info: ${short(ANY)}\\s+off\\s+auto\\s+Any any short`));
    expect([...s.complete('rule rm ')].sort()).toEqual([short(SOL), short(ANY)].sort());
  });

  it('adds a rule with words to look for and words to avoid, and checks them first', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('POST /rules/', (r) => {
      const body = RuleCreate.parse(JSON.parse(r.body ?? '{}'));
      return { status: 201, body: { ...SOL, ruleName: body.ruleName, conditions: body.conditions } };
    });
    const out = await s.type(
      'rule add sol positive 70-100 long 500 Listings --include "listing, list*,  spot etf" --exclude perpetual',
    );
    expect(out).toEqual([
      `success: Rule ${short(SOL)} saved: Listings — SOL positive 70-100 with "listing" or "list*" or "spot etf" without "perpetual" → long 500 USDT (TP 3%, SL 2%, hold 120m)`,
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toMatchObject({
      conditions: { include: ['listing', 'list*', 'spot etf'], exclude: ['perpetual'] },
    });
    const many = Array.from({ length: 21 }, (_, i) => `w${i}`).join(',');
    expect(await s.type(`rule add sol any any long 500 --include ${many}`)).toEqual([
      'error: Include may hold at most 20 words or phrases.',
    ]);
    expect(await s.type('rule add sol any any long 500 --exclude "$!"')).toEqual([
      'error: Each exclude word or phrase must contain a letter or a digit.',
    ]);
    expect(s.server.count('POST /rules/')).toBe(1);
  });

  it('explains a bad line without calling the server', async () => {
    const s = session();
    expect(await s.type('rule add sol happy 70-100 long 500')).toEqual([
      'error: Sentiment must be positive, negative, neutral or any.',
    ]);
    expect(await s.type('rule add sol positive 100-70 long 500')).toEqual([
      'error: Impact range goes from 0 to 100, low end first.',
    ]);
    expect(await s.type('rule add sol positive 70-100 long lots')).toEqual([
      'error: Trade amount must be a number above 0, e.g. 500 or 1k.',
    ]);
    expect(s.server.count('POST /rules/')).toBe(0);
  });

  it('turns automated trading off for a while and back on', async () => {
    const s = session();
    expect(await s.type('rules off --for 2h')).toEqual([
      `error: Automated trading is OFF until ${utcTime(recordedRisk('rules off for 2h').resume_at)} (rules on to resume).`,
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ on: true, resume_in_minutes: 120 });
    expect((await s.type('rules on'))[0]).toMatch(/^info: Automated trading is on\./);
  });

  it('shows and changes the risk envelope', async () => {
    const s = session();
    const shown = await s.type('risk');
    expect(shown[2]).toMatch(/^info: max order \(every order\)\s+50000 USDT\s+risk set max-order <usdt>$/);
    expect(shown[4]).toMatch(/^info: max positions opened by rules\s+5\s+risk set positions <n>$/);
    // The default fits the account, and says what it is a share of.
    expect(shown.at(-1)).toBe(
      'muted: The max order is 50,000 (5 × your 10,000 paper balance); risk set max-order <usdt> sets your own.',
    );
    const out = await s.type('risk set max-order 5k');
    expect(out[0]).toBe('success: Risk setting max-order is now 5k.');
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ max_order_usd: 5000 });
    expect((await s.type('risk set leverage 3'))[0]).toMatch(
      /^error: .*The setting is one of max-order, budget, positions, cooldown, max-age, live-max-order, live-budget\./,
    );
  });

  it('needs a login, and says the spec message when the rules cannot be fetched', async () => {
    const guest = session(null);
    expect(await guest.type('rules')).toEqual(['error: You must be logged in.']);
    const s = session();
    s.server.on('GET /rules/', () => ({ status: 500, body: {} }));
    expect(await s.type('rules')).toEqual(['error: Failed to fetch auto-trade rules.']);
  });

  it('names a rule id that matches none of yours', async () => {
    const s = session();
    expect(await s.type('rule rm 9')).toEqual(['error: No rule 9. Type rules to list yours.']);
    expect(await s.type('rules test 9 --days 7')).toEqual(['error: No rule 9. Type rules to list yours.']);
    expect((await s.run('rule on 9')).exit).toBe(1);
  });
});

describe('rules --open', () => {
  it('lists the rules and opens the Trade Rules window', async () => {
    const s = session();
    await s.type('rules');
    expect(s.stores.rules.modalOpen.value).toBe(false);
    await s.type('rules --open');
    expect(s.stores.rules.modalOpen.value).toBe(true);
  });
});

describe('rules confirm / rules reject', () => {
  const answered = (over: Partial<Decision>) =>
    decision({ id: '42', rule_name: 'BTC ask', signal_id: '123', asset: 'BTC', side: 'long', ...over });

  it("answers an ask rule's proposal and says what the server did", async () => {
    const s = session();
    const sent: unknown[] = [];
    s.server.on('POST /rules/decisions/42/answer', (r) => {
      sent.push(JSON.parse(r.body ?? '{}'));
      return {
        status: 200,
        body: {
          decision: answered({ outcome: 'fired', answered_via: 'terminal' }),
          message: 'Placed LONG 0.002 BTC at 95000 on paper.',
        },
      };
    });
    s.server.on('GET /rules/ledger', () => ({ status: 200, body: [] }));
    expect(await s.type('rules confirm 42')).toEqual([
      "success: rule 'BTC ask' on #123: Placed LONG 0.002 BTC at 95000 on paper.",
    ]);
    expect(await s.type('rules confirm #42 --via browser')).toHaveLength(1);
    expect(sent).toEqual([
      { answer: 'confirm', via: 'terminal' },
      { answer: 'confirm', via: 'browser' },
    ]);
  });

  it('says who answered first, and reads a bad id without calling the server', async () => {
    const s = session();
    s.server.on('POST /rules/decisions/42/answer', () => ({
      status: 409,
      body: { detail: 'Already answered in Telegram.' },
    }));
    s.server.on('GET /rules/ledger', () => ({ status: 200, body: [] }));
    expect(await s.type('rules reject 42')).toEqual(['error: Already answered in Telegram.']);
    expect((await s.type('rules reject abc'))[0]).toMatch(
      /The proposal id is the number the prompt shows, e\.g\. 42\./,
    );
  });

  it('shows asking, answered and unanswered decisions in the ledger', () => {
    const rows = ledgerTable([
      answered({ outcome: 'asking', quantity: null, notional: null }),
      answered({ id: '41', outcome: 'skipped', reason: 'no_answer', detail: 'No answer within 60 s.' }),
      answered({ id: '40', outcome: 'skipped', reason: 'rejected', answered_via: 'browser' }),
      answered({ id: '39', outcome: 'fired', answered_via: 'telegram' }),
    ]).map((l) => l.text);
    expect(rows[1]).toContain('asking');
    expect(rows[1]).toContain('rules confirm 42 / rules reject 42');
    expect(rows[2]).toContain('no answer');
    expect(rows[3]).toContain('rejected (browser)');
    expect(rows[4]).toContain('fired (telegram)');
  });
});
