import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../contracts/rules';
import { createTerminalStore } from '../stores/terminal';
import { createFakeClock } from '../testing/fakeClock';
import { CLOSED_MS, createProposals, proposedVenue, type ProposalMessage } from './proposals';
import { askingDecision, T0 } from './testing/decisions';

const asking = askingDecision;

function setup() {
  const clock = createFakeClock(T0);
  const terminal = createTerminalStore();
  const loggedIn = signal(true);
  const ledger = signal<readonly Decision[]>([]);
  const ran: string[] = [];
  const proposals = createProposals({
    clock,
    loggedIn,
    ledger,
    run: async (line) => void ran.push(line),
    print: (lines) => terminal.print(lines),
    terminal,
    headline: () => null,
  });
  const stop = proposals.start();
  const printed = () =>
    terminal.entries.peek().flatMap((e) => (e.kind === 'output' ? [`${e.tone}: ${e.text}`] : []));
  const propose = (d = asking()) =>
    proposals.receive({
      type: 'proposal',
      decision: d,
      headline: 'Spot BTC ETF approved by the SEC',
      reasoning: 'Approval opens the door to large inflows.',
      time: T0,
    });
  const closed = (event: 'answered' | 'fired' | 'skipped', over: Partial<Decision>) =>
    proposals.receive({
      type: 'proposal_closed',
      event,
      decision: asking(over),
      time: T0,
    } as ProposalMessage);
  return { clock, terminal, loggedIn, ledger, ran, proposals, stop, printed, propose, closed };
}

describe('ask rule proposals', () => {
  it('asks at the terminal with the order, the headline and a countdown; y confirms', async () => {
    const s = setup();
    s.propose();
    expect(s.proposals.shown.value.map((p) => [p.id, p.closed])).toEqual([['7', null]]);
    expect(s.terminal.question.value?.label).toBe(
      "rule 'BTC ask' asks: LONG 200 USDT BTC on #123 'Spot BTC ETF approved by the SEC' — confirm? [y/N] (60 s) ",
    );
    s.clock.advance(2_000);
    expect(s.terminal.question.value?.label).toMatch(/\[y\/N\] \(58 s\) $/);
    expect(s.proposals.now.value).toBe(T0 + 2_000);
    s.terminal.answer('y');
    await Promise.resolve();
    expect(s.ran).toEqual(['rules confirm 7 --via terminal']);
    s.stop();
  });

  it('takes Enter as no, runs a command typed instead of an answer, and the toast runs the same command', async () => {
    const s = setup();
    s.propose();
    s.terminal.answer('price btc');
    await Promise.resolve();
    await Promise.resolve();
    expect(s.ran).toEqual(['price btc']);
    expect(s.terminal.question.value?.label).toMatch(/^rule 'BTC ask' asks:/);
    s.terminal.answer('');
    await Promise.resolve();
    expect(s.ran[1]).toBe('rules reject 7 --via terminal');
    await s.proposals.answer('7', true);
    expect(s.ran[2]).toBe('rules confirm 7 --via browser');
    s.stop();
  });

  it('stops asking at the terminal on Ctrl+C, saying how to answer later', async () => {
    const s = setup();
    s.propose();
    s.terminal.answer(null);
    await Promise.resolve();
    expect(s.terminal.question.value).toBeNull();
    expect(s.printed().at(-1)).toBe('muted: rules confirm 7 / rules reject 7 answers it later.');
    expect(s.proposals.shown.value[0]?.closed).toBeNull();
    expect(s.ran).toEqual([]);
    s.stop();
  });

  it('says where it was answered when another channel answered first, and then goes', async () => {
    const s = setup();
    s.propose();
    s.closed('answered', { outcome: 'pending', answered_via: 'telegram' });
    expect(s.proposals.shown.value[0]?.closed).toBe('Confirmed in Telegram: placing the order…');
    expect(s.terminal.question.value).toBeNull();
    expect(s.printed()).toContain("muted: rule 'BTC ask' on #123: Confirmed in Telegram: placing the order…");
    s.closed('fired', { outcome: 'fired', answered_via: 'telegram', quantity: 0.002, price: 95000 });
    expect(s.proposals.shown.value[0]?.closed).toBe('Confirmed in Telegram: placed LONG 0.002 BTC at 95000.');
    s.clock.advance(CLOSED_MS);
    expect(s.proposals.shown.value).toEqual([]);
    // The ledger still listing it as asking (read before the answer) does not bring it back.
    s.ledger.value = [asking()];
    expect(s.proposals.shown.value).toEqual([]);
    s.stop();
  });

  it('closes on no answer, and prints a second proposal with how to answer it while one is asked', async () => {
    const s = setup();
    s.propose();
    s.propose(asking({ id: '8', rule_name: 'ETH ask', asset: 'ETH', signal_id: '124' }));
    expect(s.printed().at(-1)).toBe(
      "info: rule 'ETH ask' asks: LONG 200 USDT ETH on #124 'Spot BTC ETF approved by the SEC' — confirm? (rules confirm 8 / rules reject 8)",
    );
    s.closed('skipped', { outcome: 'skipped', reason: 'no_answer', detail: 'No answer within 60 s.' });
    expect(s.proposals.shown.value.find((p) => p.id === '7')?.closed).toBe('No answer in time: skipped.');
    // The prompt moves on to the one still open.
    await Promise.resolve();
    expect(s.terminal.question.value?.label).toMatch(/^rule 'ETH ask' asks:/);
    s.closed('skipped', {
      id: '8',
      outcome: 'skipped',
      reason: 'kill_switch',
      detail: 'Automated trading is off.',
      answered_via: 'browser',
    });
    expect(s.proposals.shown.value.find((p) => p.id === '8')?.closed).toBe(
      'Not placed: Automated trading is off.',
    );
    s.stop();
  });

  it('shows a proposal the ledger lists as asking (a tab opened after it came), and clears on logout', () => {
    const s = setup();
    s.ledger.value = [asking(), asking({ id: '9', ask_expires_at: new Date(T0 - 1).toISOString() })];
    expect(s.proposals.shown.value.map((p) => p.id)).toEqual(['7']);
    s.loggedIn.value = false;
    expect(s.proposals.shown.value).toEqual([]);
    s.stop();
  });
});

describe('where a proposal would go', () => {
  it("names the decision's own venue and mode, whatever account manual orders use", () => {
    expect(proposedVenue({ account_mode: 'paper', account_venue: 'paper' })).toBe('paper');
    expect(proposedVenue({ account_mode: 'live', account_venue: 'bybit' })).toBe('Bybit LIVE');
    expect(proposedVenue({ account_mode: 'demo', account_venue: 'okx' })).toBe('OKX demo');
    // A copy saved before decisions named their venue.
    expect(proposedVenue({ account_mode: 'live', account_venue: 'paper' })).toBe('your LIVE key');
  });
});
