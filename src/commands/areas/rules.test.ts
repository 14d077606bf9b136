import { describe, expect, it } from 'vitest';
import { Rule, RuleCreate, type RiskState } from '../../contracts/rules';
import { createTestConsole } from '../testing/scripted';

const RISK: RiskState = {
  max_order_usd: 250_000,
  daily_budget_usd: 5000,
  max_positions: 5,
  cooldown_minutes: 15,
  max_age_seconds: 15,
  live_max_order_usd: 500,
  live_daily_budget_usd: 1000,
  kill_switch: false,
  resume_at: null,
  spent_today_usd: 0,
  live_spent_today_usd: 0,
};

/** A console against a fake rules API that stores what it is sent, shaped by the shared contracts. */
function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const rules: Rule[] = [];
  let risk = { ...RISK };
  let n = 0;
  s.server.on('GET /rules/', () => ({ status: 200, body: rules }));
  s.server.on('GET /rules/risk', () => ({ status: 200, body: risk }));
  s.server.on('POST /rules/', (r) => {
    const body = RuleCreate.parse(JSON.parse(r.body ?? '{}'));
    n += 1;
    const rule = Rule.parse({
      id: `${n}aaaaaaa-0000-4000-8000-000000000000`,
      ruleName: body.ruleName,
      conditions: body.conditions,
      action: body.action,
      isActive: body.isActive,
      version: 1,
      created_at: '2026-11-23T08:00:00.000Z',
    });
    rules.push(rule);
    return { status: 201, body: rule };
  });
  s.server.on('POST /rules/kill-switch', (r) => {
    const body = JSON.parse(r.body ?? '{}') as { on: boolean; resume_in_minutes?: number };
    risk = {
      ...risk,
      kill_switch: body.on,
      resume_at: body.resume_in_minutes === undefined ? null : '2026-11-23T10:00:00.000Z',
    };
    return { status: 200, body: risk };
  });
  return { ...s, rules };
}

describe('rules commands', () => {
  it('adds a rule from one line, with exits, and lists it', async () => {
    const s = session();
    const out = await s.type('rule add sol positive 70-100 long 500 "SOL good news" --tp 3 --sl 2 --hold 2h');
    expect(out).toEqual([
      'success: Rule 1aaaaaaa saved: SOL good news — SOL positive 70-100 → long 500 USDT (TP 3%, SL 2%, hold 120m)',
    ]);
    expect(s.rules[0]?.conditions).toEqual({
      asset: 'SOL',
      sentiment: 'positive',
      min_impact: 70,
      max_impact: 100,
    });
    expect(await s.type('rule add any any any short 1k --off')).toEqual([
      'success: Rule 2aaaaaaa saved (off): Any any short — any asset any sentiment any impact → short 1000 USDT',
    ]);
    const list = await s.type('rules');
    expect(list[0]).toBe(
      'info: Automated trading is on. Today 0 of 5000 USDT; max order 250000, 5 positions, cooldown 15 min.',
    );
    expect(list[2]).toMatch(/^info: 1aaaaaaa\s+on\s+SOL good news\s+SOL positive 70-100/);
    expect(list[3]).toMatch(/^info: 2aaaaaaa\s+off\s+Any any short/);
    expect(s.complete('rule rm ')).toEqual(['1aaaaaaa', '2aaaaaaa']);
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
      'error: Automated trading is OFF until 10:00 UTC (rules on to resume).',
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({ on: true, resume_in_minutes: 120 });
    expect((await s.type('rules on'))[0]).toMatch(/^info: Automated trading is on\./);
  });

  it('shows and changes the risk envelope', async () => {
    const s = session();
    s.server.on('PUT /rules/risk', (r) => ({
      status: 200,
      body: { ...RISK, ...(JSON.parse(r.body ?? '{}') as object) },
    }));
    expect((await s.type('risk'))[2]).toMatch(
      /^info: max order \(every order\)\s+250000 USDT\s+risk set max-order <usdt>$/,
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
