import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RISK, type RiskState, type Rule } from '../../contracts/rules';
import type { Trade } from '../../contracts/trading';
import type { OutputLine } from '../terminal/output';
import { autoChip, startRuleAnnouncements, withDecision } from './announce';
import { createRulesStore } from './rules';
import { decision, T0 } from './testing/decisions';

function setup(trades: readonly Trade[] = []) {
  const store = createRulesStore();
  const loggedIn = signal(true);
  const printed: OutputLine[] = [];
  const toasts: string[] = [];
  let risks = 0;
  const stop = startRuleAnnouncements({
    loggedIn,
    store,
    print: (lines) => void printed.push(...lines),
    toast: (text, tone) => void toasts.push(`${tone}: ${text}`),
    now: () => T0,
    headline: (id) => (id === '130' ? 'Bridge exploit drains 40M from the Ethereum bridge' : null),
    recentTrades: () => Promise.resolve(trades),
    reloadRisk: () => void (risks += 1),
    keyHint: (account) => (account === 'k1' ? 'ab…cd' : null),
  });
  const text = () => printed.map((l) => `${l.tone}: ${l.text}`);
  return { store, loggedIn, printed, toasts, text, stop, risks: () => risks };
}

describe('rules announce themselves in the terminal', () => {
  it('prints a fired rule once, with its fill and the card it fired on, and reloads the budget', () => {
    const s = setup();
    expect(s.risks()).toBe(1);
    s.store.setLedger([decision({})]);
    s.store.setLedger([decision({})]);
    expect(s.text()).toEqual([
      "success: rule 'Bad news short' → SHORT 0.019 ETH at 3,147.53, fee 0.03 USDT on #130 'Bridge exploit drains 40M from the Ethe…'. Paper exchange: no real funds.",
    ]);
    expect(s.risks()).toBe(2);
    // The same news as a toast, once.
    expect(s.toasts).toEqual([`event: ${s.printed[0]?.text ?? ''}`]);
    s.stop();
  });

  it('names the account a rule traded on, with the key hint when the key is known', () => {
    const s = setup();
    const live = { account: 'k1', account_mode: 'live', account_venue: 'bybit' } as const;
    s.store.setLedger([decision({ id: '7', ...live }), decision({ id: '8', ...live, account: 'k2' })]);
    // The ledger is newest first: the key no hint is known for (k2) was announced first.
    expect(s.text()).toEqual([
      expect.stringMatching(/ on #130 '.*'\. Bybit LIVE account: real funds\.$/),
      expect.stringMatching(/ on #130 '.*'\. Bybit LIVE account \(key ab…cd\): real funds\.$/),
    ]);
    s.stop();
  });

  it('announces a confirmed proposal the socket says filled, once, with its account', () => {
    const s = setup();
    const asking = decision({ id: '5', outcome: 'asking', quantity: null, price: null, fee: null });
    s.store.setLedger([asking, decision({ id: '4', outcome: 'skipped', reason: 'cooldown' })]);
    expect(s.printed).toEqual([]);
    const filled = decision({ id: '5', answered_via: 'telegram' });
    s.store.setLedger(withDecision(s.store.ledger.value, filled));
    expect(s.store.ledger.value.map((d) => [d.id, d.outcome])).toEqual([
      ['5', 'fired'],
      ['4', 'skipped'],
    ]);
    // The next read of the ledger brings the same decision: it is not announced again.
    s.store.setLedger([filled]);
    expect(s.text()).toEqual([
      expect.stringMatching(/^success: rule 'Bad news short' → SHORT .*\. Paper exchange: no real funds\.$/),
    ]);
    s.stop();
  });

  it('says nothing of what was in the ledger before login', () => {
    const s = setup();
    s.store.setLedger([decision({ decided_at: new Date(T0 - 60_000).toISOString() })]);
    expect(s.printed).toEqual([]);
    s.stop();
  });

  it('prints the skips a user cares about quietly, and not the routine ones', () => {
    const s = setup();
    s.store.setLedger([
      decision({ id: '2', outcome: 'skipped', reason: 'cooldown', detail: 'Cooling down.' }),
      decision({ id: '3', outcome: 'skipped', reason: 'kill_switch', detail: 'The kill switch is on.' }),
    ]);
    expect(s.text()).toEqual(["muted: rule 'Bad news short' held back on #130: The kill switch is on."]);
    expect(s.toasts).toEqual(["quiet: rule 'Bad news short' held back on #130: The kill switch is on."]);
    // The card of that signal says so too (the cooldown, routine, is left out).
    expect(s.store.notedBySignal.value.get('130')?.reason).toBe('kill_switch');
    s.stop();
  });

  it("prints an exit with its realised PnL and the fee of the rule's closing fill", async () => {
    const exitFill = {
      id: '9',
      time: T0 + 60_000,
      symbol: 'ETH/USDT',
      side: 'buy',
      quantity: 0.019,
      price: 3100,
      realizedPnl: 0.9,
      fee: 0.03,
      accountId: 'paper',
      account: { venue: 'paper', mode: 'paper', keyHint: null },
      source: 'rule',
      ruleId: 'r1',
      ruleName: 'Bad news short',
      orderId: 'o9',
    } satisfies Trade;
    const s = setup([exitFill]);
    s.store.setLedger([decision({ exit: 'open' })]);
    s.store.setLedger([
      decision({ exit: 'take profit: 1.51% at 3100; closed 0.019 at 3100', exit_pnl: 0.9 }),
    ]);
    await new Promise((r) => setTimeout(r, 0));
    expect(s.text().at(-1)).toBe(
      "success: rule 'Bad news short' closed ETH short: take profit: 1.51% at 3100; closed 0.019 at 3100; realised +0.90 USDT, fee 0.03 USDT",
    );
    s.stop();
  });

  it('names the rule a position comes from, until a newer decision or an exit says otherwise', () => {
    const s = setup();
    s.store.setLedger([decision({ id: '1' })]);
    expect(s.store.openedByRule.value.get('paper ETH/USDT short')?.rule_name).toBe('Bad news short');
    expect(s.store.openedByRule.value.has('paper ETH/USDT long')).toBe(false);
    s.store.setLedger([decision({ id: '1', exit: 'stop loss: 2% at 3200; closed 0.019 at 3200' })]);
    expect(s.store.openedByRule.value.size).toBe(0);
    s.store.setLedger([decision({ id: '1', account: 'k1', account_mode: 'live' })]);
    expect([...s.store.openedByRule.value.keys()]).toEqual(['k1 ETH/USDT short']);
    s.stop();
  });

  it('forgets on logout and prints nothing after dispose', () => {
    const s = setup();
    s.stop();
    s.store.setLedger([decision({})]);
    expect(s.printed).toEqual([]);
  });
});

describe('the AUTO chip', () => {
  const rule = (isActive: boolean) => ({ id: 'r', isActive }) as Rule;
  const risk = (over: Partial<RiskState> = {}): RiskState => ({
    ...DEFAULT_RISK,
    kill_switch: false,
    resume_at: null,
    spent_today_usd: 110,
    live_spent_today_usd: 0,
    ...over,
  });

  it('shows while a rule is on, with the day’s spend, and says AUTO OFF under the kill switch', () => {
    expect(autoChip([rule(false)], risk())).toBeNull();
    expect(autoChip([rule(true), rule(true)], risk())?.text).toBe('AUTO · 2 rules · 110 / 5,000 USDT today');
    expect(autoChip([rule(true)], null)?.text).toBe('AUTO · 1 rule');
    const off = autoChip([rule(true)], risk({ kill_switch: true, resume_at: '2026-11-26T23:30:00.000Z' }));
    expect(off).toMatchObject({ text: 'AUTO OFF', off: true });
    expect(off?.title).toBe(
      'Kill switch on until 23:30:00 UTC: 1 rule enabled, no automated orders are sent. Click for Trade Rules.',
    );
  });
});
