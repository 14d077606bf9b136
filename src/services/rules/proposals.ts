import { effect, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Decision } from '../../contracts/rules';
import type { PositionsMessage } from '../../contracts/trading';
import { venueLabel } from '../../contracts/venues';
import type { Clock } from '../clock';
import type { Question } from '../terminal/question';
import { info, muted, type OutputLine } from '../terminal/output';

/**
 * An ask rule's proposals in the open tab: a toast each (the proposed order, its news, a countdown,
 * Confirm and Reject) and a `[y/N]` prompt in the terminal. Answers run `rules confirm <id>` or
 * `rules reject <id>`, the command a typed line runs; the first answer from any channel wins and the
 * others hear it from the server (the positions socket's `proposal_closed`).
 */

export type ProposalMessage = Extract<PositionsMessage, { type: 'proposal' | 'proposal_closed' }>;

export interface Proposal {
  id: string;
  decision: Decision;
  headline: string | null;
  reasoning: string | null;
  /** When the window closes (ms). */
  expiresAt: number;
  /** What became of it (answered elsewhere, placed, skipped, expired): shown a moment, then it goes. */
  closed: string | null;
}

/** How long a closed proposal stays to say what became of it. */
export const CLOSED_MS = 4_000;

export interface ProposalsDeps {
  clock: Clock;
  loggedIn: ReadonlySignal<boolean>;
  /** The rules ledger: proposals still asking there are shown too (a tab opened after they came). */
  ledger: ReadonlySignal<readonly Decision[]>;
  /**
   * Runs a command line as a click does (the toast's buttons, the terminal's answer, and a command typed
   * while the terminal asked: y / yes confirm, n / no / Enter reject, anything else runs as typed).
   */
  run(line: string): Promise<unknown>;
  print(lines: readonly OutputLine[]): void;
  terminal: {
    readonly question: ReadonlySignal<Question | null>;
    ask(question: Question): Promise<string | null>;
    /** Settles the pending question (null cancels it). */
    answer(text: string | null): void;
    /** Shows the pending question with another label (the countdown), keeping what was typed. */
    relabel(label: string): void;
  };
  /** A signal's text by id, when the feed has it. */
  headline(signalId: string): string | null;
}

export interface Proposals {
  /** Open proposals, and those closed in the last few seconds, oldest first. */
  readonly shown: ReadonlySignal<readonly Proposal[]>;
  /** The clock's time, moved every second while a proposal is shown: what the countdowns read. */
  readonly now: ReadonlySignal<number>;
  receive(message: ProposalMessage): void;
  /** Answers from this tab: runs `rules confirm <id>` (or reject). */
  answer(id: string, yes: boolean): Promise<void>;
  start(): () => void;
}

const short = (text: string | null, max = 40): string => {
  if (text === null) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? ` '${line.slice(0, max - 1).trimEnd()}…'` : ` '${line}'`;
};

/** Seconds left in a proposal's window, never below 0. */
export const secondsLeft = (p: Pick<Proposal, 'expiresAt'>, now: number): number =>
  Math.max(0, Math.ceil((p.expiresAt - now) / 1000));

/** `LONG 200 USDT BTC`: the proposed order. */
export const proposedOrder = (d: Decision): string =>
  `${d.side.toUpperCase()} ${d.amount_usd} USDT ${d.asset}`;

/** `paper`, `Bybit LIVE`, `OKX demo`: where the proposed order would go, from the decision's own venue. */
export function proposedVenue(d: Pick<Decision, 'account_mode' | 'account_venue'>): string {
  if (d.account_mode === 'paper') return 'paper';
  const mode = d.account_mode === 'live' ? 'LIVE' : 'demo';
  return d.account_venue === 'paper' ? `your ${mode} key` : `${venueLabel(d.account_venue)} ${mode}`;
}

/** `rule 'X' asks: LONG 200 USDT BTC on #123 'headline…' — confirm? [y/N] (58 s) `. */
export function askLabel(p: Proposal, now: number): string {
  const d = p.decision;
  return `rule '${d.rule_name}' asks: ${proposedOrder(d)} on #${d.signal_id}${short(p.headline)} — confirm? [y/N] (${secondsLeft(p, now)} s) `;
}

const CHANNELS: Record<string, string> = {
  browser: 'the browser',
  terminal: 'the terminal',
  telegram: 'Telegram',
  api: 'the API',
};

/** What became of a proposal, from the server's word on it. */
export function closedText(event: 'answered' | 'fired' | 'skipped', d: Decision): string {
  const where = CHANNELS[d.answered_via ?? ''] ?? 'another window';
  if (event === 'answered')
    return d.outcome === 'skipped' ? `Rejected in ${where}.` : `Confirmed in ${where}: placing the order…`;
  if (event === 'fired') {
    const fill = d.quantity === null || d.price === null ? '' : ` ${d.quantity} ${d.asset} at ${d.price}`;
    return `Confirmed in ${where}: placed ${d.side.toUpperCase()}${fill}.`;
  }
  if (d.reason === 'no_answer') return `No answer in time: skipped.`;
  if (d.reason === 'rejected') return `Rejected in ${where}.`;
  return `Not placed: ${d.detail ?? d.reason ?? 'skipped'}`;
}

export function createProposals(deps: ProposalsDeps): Proposals {
  const { clock } = deps;
  const shown = signal<readonly Proposal[]>([], { name: 'proposals.shown' });
  const now = signal(clock.now(), { name: 'proposals.now' });
  /** Proposals already closed (never shown again when the ledger still lists them as asking). */
  const done = new Set<string>();
  /** Proposals the terminal no longer asks about (Ctrl+C): the toast and the commands still answer them. */
  const unprompted = new Set<string>();
  const timers = new Map<string, () => void>();
  let ticking: (() => void) | null = null;
  /** The proposal the terminal's prompt asks about, and the question shown for it. */
  let prompting: { id: string; label: string } | null = null;
  const ours = (): boolean => prompting !== null && deps.terminal.question.peek()?.label === prompting.label;

  const drop = (id: string): void => {
    timers.get(id)?.();
    timers.delete(id);
    shown.value = shown.value.filter((p) => p.id !== id);
  };

  const tick = (): void => {
    ticking = null;
    now.value = clock.now();
    for (const p of shown.peek()) {
      // The server skips it when the window closes; until its word comes, the countdown shows 0.
      if (p.closed === null && p.expiresAt + 5_000 < now.peek()) close(p.id, 'No answer in time: skipped.');
    }
    if (prompting !== null && ours()) {
      const p = shown.peek().find((x) => x.id === prompting?.id);
      if (p !== undefined && p.closed === null) {
        const label = askLabel(p, now.peek());
        prompting = { id: p.id, label };
        deps.terminal.relabel(label);
      }
    }
    if (shown.peek().length > 0) ticking = clock.setTimer(tick, 1000);
  };
  const keepTicking = (): void => {
    if (ticking === null) ticking = clock.setTimer(tick, 1000);
  };

  /** Asks at the terminal about the oldest open proposal, unless something else is being asked. */
  const prompt = (): void => {
    if (prompting !== null || deps.terminal.question.peek() !== null) return;
    const p = shown.peek().find((x) => x.closed === null && !unprompted.has(x.id));
    if (p === undefined) return;
    const label = askLabel(p, clock.now());
    prompting = { id: p.id, label };
    void deps.terminal.ask({ label, secret: false }).then(async (typed) => {
      const asked = prompting?.id === p.id;
      if (asked) prompting = null;
      if (!asked) return prompt(); // closed meanwhile: the next one, if any
      const said = typed?.trim().toLowerCase() ?? null;
      if (said === null) {
        // Ctrl+C, or another question asked over it: the toast still asks; the terminal no more.
        unprompted.add(p.id);
        deps.print([muted(`rules confirm ${p.id} / rules reject ${p.id} answers it later.`)]);
      } else if (said === 'y' || said === 'yes' || said === 'n' || said === 'no' || said === '') {
        const yes = said.startsWith('y');
        await deps.run(`rules ${yes ? 'confirm' : 'reject'} ${p.id} --via terminal`);
      } else {
        // A command typed as the question came: it runs, and the question comes back after it.
        await deps.run(typed ?? '');
      }
      prompt();
    });
  };

  const open = (p: Proposal): void => {
    if (done.has(p.id) || shown.peek().some((x) => x.id === p.id)) return;
    shown.value = [...shown.peek(), p];
    now.value = clock.now();
    keepTicking();
    const line = askLabel(p, clock.now()).replace(/ \[y\/N\] \(\d+ s\) $/, '');
    if (prompting !== null || deps.terminal.question.peek() !== null) {
      deps.print([info(`${line} (rules confirm ${p.id} / rules reject ${p.id})`)]);
    }
    prompt();
  };

  /** Says what became of it, and takes the terminal's prompt about it away (answered elsewhere, or late). */
  const settle = (id: string, text: string): Proposal | undefined => {
    done.add(id);
    const p = shown.peek().find((x) => x.id === id);
    if (p === undefined) return undefined;
    shown.value = shown.peek().map((x) => (x.id === id ? { ...x, closed: text } : x));
    if (prompting?.id === id) {
      const asking = ours();
      prompting = null;
      if (asking) {
        deps.terminal.answer(null);
        deps.print([muted(`rule '${p.decision.rule_name}' on #${p.decision.signal_id}: ${text}`)]);
      }
    }
    return p;
  };

  function close(id: string, text: string): void {
    if (settle(id, text) === undefined) return;
    timers.get(id)?.();
    timers.set(
      id,
      clock.setTimer(() => drop(id), CLOSED_MS),
    );
  }

  const fromDecision = (d: Decision, headline: string | null, reasoning: string | null): Proposal => ({
    id: d.id,
    decision: d,
    headline: headline ?? deps.headline(d.signal_id),
    reasoning,
    expiresAt: Date.parse(d.ask_expires_at ?? d.decided_at),
    closed: null,
  });

  return {
    shown,
    now,
    receive(message) {
      if (message.type === 'proposal') {
        if (message.decision.outcome === 'asking')
          open(fromDecision(message.decision, message.headline, message.reasoning));
        return;
      }
      const text = closedText(message.event, message.decision);
      if (message.event === 'answered' && message.decision.outcome !== 'skipped') {
        // Confirmed: the order is on its way; the toast says so until it is placed or skipped.
        settle(message.decision.id, text);
        return;
      }
      close(message.decision.id, text);
    },
    async answer(id, yes) {
      await deps.run(`rules ${yes ? 'confirm' : 'reject'} ${id} --via browser`);
    },
    start() {
      const stopLedger = effect(() => {
        const rows = deps.ledger.value;
        const at = clock.now();
        for (const d of rows) {
          if (d.outcome === 'asking' && Date.parse(d.ask_expires_at ?? '') > at)
            open(fromDecision(d, null, null));
          else if (
            (d.outcome === 'fired' || d.outcome === 'skipped') &&
            !timers.has(d.id) &&
            shown.peek().some((x) => x.id === d.id)
          )
            close(d.id, closedText(d.outcome, d));
        }
      });
      const stopLogin = effect(() => {
        if (deps.loggedIn.value) return;
        for (const cancel of timers.values()) cancel();
        timers.clear();
        shown.value = [];
        done.clear();
        unprompted.clear();
      });
      return () => {
        stopLedger();
        stopLogin();
        ticking?.();
        ticking = null;
        for (const cancel of timers.values()) cancel();
        timers.clear();
      };
    },
  };
}
