import { computed, effect, signal, type ReadonlySignal } from '@preact/signals-core';
import { z } from 'zod';
import {
  BacktestResult,
  Decision,
  FlattenResult,
  GapReport,
  PromotionReport,
  RULE_MESSAGES,
  RiskState,
  Rule,
  RuleAnswerResult,
  RuleList,
  type BacktestRequest,
  type RiskUpdate,
  type RuleCreate,
  type RulePatch,
  type SkipReason,
} from '../../contracts/rules';
import { decisionReceipt } from '../../contracts/timeline';
import { pairOf } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';

/** Skips the user would care about (their own limits, the kill switch, old news, a venue's refusal). */
export const CARED_SKIPS: ReadonlySet<SkipReason> = new Set<SkipReason>([
  'budget',
  'kill_switch',
  'stale',
  'max_positions',
  'max_order',
  'exchange',
  'live_account',
]);

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

export interface RulesStore {
  readonly rules: ReadonlySignal<readonly Rule[]>;
  readonly risk: ReadonlySignal<RiskState | null>;
  readonly ledger: ReadonlySignal<readonly Decision[]>;
  readonly backtest: ReadonlySignal<BacktestResult | null>;
  /** The fired decisions of the ledger by signal id: what a card says about the rules it fired. */
  readonly firedBySignal: ReadonlySignal<ReadonlyMap<string, Decision>>;
  /** What a card says of a rule: its fired decision, else a skip the user would care about. */
  readonly notedBySignal: ReadonlySignal<ReadonlyMap<string, Decision>>;
  /**
   * By pair (`SOL/USDT`) and side: the rule decision a position comes from, when the newest fired decision
   * on that pair and account went that way and no exit has closed it.
   */
  readonly openedByRule: ReadonlySignal<ReadonlyMap<string, Decision>>;
  /** The Trade Rules & Settings modal. */
  readonly modalOpen: ReadonlySignal<boolean>;
  setRules(rules: readonly Rule[]): void;
  setRisk(risk: RiskState): void;
  setLedger(rows: readonly Decision[]): void;
  setBacktest(result: BacktestResult | null): void;
  openModal(): void;
  closeModal(): void;
  clear(): void;
}

export function createRulesStore(): RulesStore {
  const rules = signal<readonly Rule[]>([], { name: 'rules.rules' });
  const risk = signal<RiskState | null>(null, { name: 'rules.risk' });
  const ledger = signal<readonly Decision[]>([], { name: 'rules.ledger' });
  const backtest = signal<BacktestResult | null>(null, { name: 'rules.backtest' });
  const modalOpen = signal(false, { name: 'rules.modalOpen' });
  const firedBySignal = computed(
    () => new Map(ledger.value.filter((d) => d.outcome === 'fired').map((d) => [d.signal_id, d])),
    { name: 'rules.firedBySignal' },
  );
  const notedBySignal = computed(
    () => {
      const skipped = ledger.value.filter(
        (d) => d.outcome === 'skipped' && d.reason !== null && CARED_SKIPS.has(d.reason),
      );
      return new Map([...skipped.map((d) => [d.signal_id, d] as const), ...firedBySignal.value]);
    },
    { name: 'rules.notedBySignal' },
  );
  const openedByRule = computed(
    () => {
      const newest = new Map<string, Decision>();
      // The ledger is newest first: the first fired decision per account and pair is the newest.
      for (const d of ledger.value) {
        const key = `${d.account} ${pairOf(d.symbol)}`;
        if (d.outcome === 'fired' && !newest.has(key)) newest.set(key, d);
      }
      const open = [...newest.values()].filter((d) => d.exit === null || d.exit === 'open');
      return new Map(open.map((d) => [`${d.account} ${pairOf(d.symbol)} ${d.side}`, d]));
    },
    { name: 'rules.openedByRule' },
  );
  return {
    rules,
    risk,
    ledger,
    backtest,
    firedBySignal,
    notedBySignal,
    openedByRule,
    modalOpen,
    setRules: (next) => void (rules.value = next),
    setRisk: (next) => void (risk.value = next),
    setLedger: (next) => void (ledger.value = next),
    setBacktest: (next) => void (backtest.value = next),
    openModal: () => void (modalOpen.value = true),
    closeModal: () => void (modalOpen.value = false),
    clear() {
      rules.value = [];
      risk.value = null;
      ledger.value = [];
      backtest.value = null;
    },
  };
}

async function attempt<T>(fallback: string, run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, message: errorMessage(error, fallback) };
  }
}

/** A rule to save: the mode and its window may be left to the server's defaults (auto, 60 s). */
export type NewRule = Omit<RuleCreate, 'mode' | 'ask_window_sec'> &
  Partial<Pick<RuleCreate, 'mode' | 'ask_window_sec'>>;

/** The rules API for commands and panes; each call updates the store on success. */
export function rulesApi(main: ApiClient, store: RulesStore) {
  const reloadRules = () =>
    attempt(RULE_MESSAGES.fetchFailed, async () => {
      const list = await main.call(RuleList, '/rules/');
      store.setRules(list);
      return list;
    });
  const reloadLedger = (limit = 50) =>
    attempt('Failed to load the decision ledger.', async () => {
      const rows = await main.call(z.array(Decision), `/rules/ledger?limit=${limit}`);
      store.setLedger(rows);
      return rows;
    });
  return {
    load: reloadRules,
    /** Without a mode the rule trades by itself (`auto`). */
    create: (body: NewRule) =>
      attempt(RULE_MESSAGES.saveFailed, async () => {
        const rule = await main.call(Rule, '/rules/', { method: 'POST', body });
        store.setRules([...store.rules.peek(), rule]);
        return rule;
      }),
    update: (id: string, patch: RulePatch) =>
      attempt(RULE_MESSAGES.saveFailed, async () => {
        const rule = await main.call(Rule, `/rules/${encodeURIComponent(id)}`, {
          method: 'PATCH',
          body: patch,
        });
        store.setRules(store.rules.peek().map((r) => (r.id === id ? rule : r)));
        return rule;
      }),
    remove: (id: string) =>
      attempt(RULE_MESSAGES.deleteFailed, async () => {
        await main.send(`/rules/${encodeURIComponent(id)}`, { method: 'DELETE' });
        store.setRules(store.rules.peek().filter((r) => r.id !== id));
        return id;
      }),
    risk: () =>
      attempt('Failed to load risk settings.', async () => {
        const risk = await main.call(RiskState, '/rules/risk');
        store.setRisk(risk);
        return risk;
      }),
    saveRisk: (change: RiskUpdate) =>
      attempt('Failed to save risk settings.', async () => {
        const risk = await main.call(RiskState, '/rules/risk', { method: 'PUT', body: change });
        store.setRisk(risk);
        return risk;
      }),
    killSwitch: (on: boolean, resumeInMinutes?: number) =>
      attempt('Failed to change the kill switch.', async () => {
        const body = resumeInMinutes === undefined ? { on } : { on, resume_in_minutes: resumeInMinutes };
        const risk = await main.call(RiskState, '/rules/kill-switch', { method: 'POST', body });
        store.setRisk(risk);
        return risk;
      }),
    ledger: (limit = 50) => reloadLedger(limit),
    /** Moves a rule's orders to 'paper' or a key id (a LIVE key asks for step-up on the server). */
    setAccount: (id: string, account: string) =>
      attempt(RULE_MESSAGES.saveFailed, async () => {
        const rule = await main.call(Rule, `/rules/${encodeURIComponent(id)}/account`, {
          method: 'POST',
          body: { account },
        });
        store.setRules(store.rules.peek().map((r) => (r.id === id ? rule : r)));
        return rule;
      }),
    promotion: (id: string, account: string) =>
      attempt('Failed to load the promotion report.', () =>
        main.call(
          PromotionReport,
          `/rules/${encodeURIComponent(id)}/promotion?account=${encodeURIComponent(account)}`,
        ),
      ),
    gap: (id: string) =>
      attempt('Failed to load the reality gap.', () =>
        main.call(GapReport, `/rules/${encodeURIComponent(id)}/gap`),
      ),
    flatten: () =>
      attempt('Failed to flatten the positions rules opened.', () =>
        main.call(FlattenResult, '/rules/flatten', { method: 'POST' }),
      ),
    /** Confirms or rejects an ask rule's proposal; the ledger is read again either way. */
    answer: (decisionId: string, answer: 'confirm' | 'reject', via: 'browser' | 'terminal' | 'api') =>
      attempt('Failed to send the answer.', async () => {
        try {
          return await main.call(
            RuleAnswerResult,
            `/rules/decisions/${encodeURIComponent(decisionId)}/answer`,
            { method: 'POST', body: { answer, via } },
          );
        } finally {
          void reloadLedger();
        }
      }),
    backtest: (id: string, request: BacktestRequest) =>
      attempt('Failed to run the backtest.', async () => {
        const result = await main.call(BacktestResult, `/rules/${encodeURIComponent(id)}/backtest`, {
          method: 'POST',
          body: request,
        });
        store.setBacktest(result);
        return result;
      }),
  };
}

export type RulesApi = ReturnType<typeof rulesApi>;

/** A rule's id as the terminal shows it: the first 8 characters, enough to tell a user's rules apart. */
export const shortId = (id: string): string => id.slice(0, 8);

/** The rule a typed id (or its start) names, or why none does. */
export function findRule(rules: readonly Rule[], typed: string): Outcome<Rule> {
  const matches = rules.filter((r) => r.id.startsWith(typed.toLowerCase()));
  const [rule] = matches;
  if (rule === undefined) return { ok: false, message: `No rule ${typed}. Type rules to list yours.` };
  if (matches.length > 1)
    return { ok: false, message: `${typed} matches several rules; give more of the id.` };
  return { ok: true, value: rule };
}

/** One line that says what a rule does: "SOL positive 70-100 → long 500 USDT (TP 3%, SL 2%)". */
export function describeRule(rule: Rule): string {
  const c = rule.conditions;
  const range =
    c.min_impact === undefined && c.max_impact === undefined
      ? 'any impact'
      : `${c.min_impact ?? 0}-${c.max_impact ?? 100}`;
  const exit = rule.action.exit;
  const exits = exit
    ? [
        exit.take_profit_pct === undefined ? null : `TP ${exit.take_profit_pct}%`,
        exit.stop_loss_pct === undefined ? null : `SL ${exit.stop_loss_pct}%`,
        exit.max_hold_minutes === undefined ? null : `hold ${exit.max_hold_minutes}m`,
      ].filter((x) => x !== null)
    : [];
  const ask = rule.mode === 'ask' ? `, ask first (${rule.ask_window_sec ?? 60} s)` : '';
  const words = [
    c.include === undefined ? null : `with ${c.include.map((w) => `"${w}"`).join(' or ')}`,
    c.exclude === undefined ? null : `without ${c.exclude.map((w) => `"${w}"`).join(', ')}`,
  ].filter((x) => x !== null);
  return (
    `${c.asset ?? 'any asset'} ${c.sentiment ?? 'any sentiment'} ${range}` +
    `${words.length > 0 ? ` ${words.join(' ')}` : ''} → ` +
    `${rule.action.side} ${rule.action.amount_usd} USDT${exits.length > 0 ? ` (${exits.join(', ')})` : ''}${ask}`
  );
}

/** What the ledger's outcome column says: an ask rule's proposal says so, and where it was answered. */
export function outcomeText(d: Decision): string {
  if (d.outcome === 'asking') return 'asking';
  if (d.reason === 'no_answer') return 'no answer';
  const via = d.answered_via == null ? '' : ` (${d.answered_via})`;
  if (d.reason === 'rejected') return `rejected${via}`;
  return `${d.outcome}${via}`;
}

/** `43 ms: analysed 3, decided 1, paper 39`: a decision's time after the news and where it went. */
export function latencyText(d: Decision): string {
  const receipt = d.timeline === undefined ? null : decisionReceipt(d.timeline, d.account_venue);
  if (receipt !== null) return receipt.replace(' after the news', '');
  return d.latency_ms === null ? '' : `${d.latency_ms} ms`;
}

/**
 * The card note of a fired rule, with its receipt: "Rule SOL good news: long 0.94 SOL = 199.80 USDT, 43 ms
 * after the news: analysed 3, decided 1, paper 39."; of one the stale guard stopped: "Rule SOL good news
 * skipped: stale: published 12 min ago (max 15 s)."
 */
export function firedNote(d: Decision): string {
  if (d.outcome === 'skipped') return `Rule ${d.rule_name} skipped: ${d.reason ?? ''}: ${d.detail ?? ''}.`;
  const fill =
    d.quantity === null || d.notional === null
      ? ''
      : ` ${d.quantity} ${d.asset} = ${d.notional.toFixed(2)} USDT`;
  const receipt = d.timeline === undefined ? null : decisionReceipt(d.timeline, d.account_venue);
  const latency =
    receipt !== null ? `, ${receipt}` : d.latency_ms === null ? '' : `, ${d.latency_ms} ms after the news`;
  return `Rule ${d.rule_name}: ${d.side}${fill}${latency}.`;
}

/**
 * Keeps the ledger fresh for the cards: loads the rules and the ledger at login, and reloads the ledger
 * when the positions change (a rule's order is a position change) or news arrives (a rule may have
 * skipped it) while the user has an active rule.
 */
export function startRulesWatch(deps: {
  loggedIn: ReadonlySignal<boolean>;
  positionsAt: ReadonlySignal<number | null>;
  /** Changes as news arrives: a rule may have skipped it (stale), which moves no position. */
  news?: ReadonlySignal<unknown>;
  store: RulesStore;
  api: RulesApi;
  setTimer(fn: () => void, ms: number): () => void;
}): () => void {
  let cancel = (): void => undefined;
  const stopLogin = effect(() => {
    if (!deps.loggedIn.value) {
      deps.store.clear();
      return;
    }
    void deps.api.load();
    void deps.api.ledger(50);
  });
  const stopPositions = effect(() => {
    void deps.positionsAt.value; // subscribes: runs again on every positions update
    if (!deps.loggedIn.peek() || !deps.store.rules.peek().some((r) => r.isActive)) return;
    cancel();
    cancel = deps.setTimer(() => void deps.api.ledger(50), 300);
  });
  let cancelNews = (): void => undefined;
  const stopNews = effect(() => {
    void deps.news?.value;
    if (!deps.loggedIn.peek() || !deps.store.rules.peek().some((r) => r.isActive)) return;
    cancelNews();
    cancelNews = deps.setTimer(() => void deps.api.ledger(50), 1000);
  });
  return () => {
    cancel();
    cancelNews();
    stopLogin();
    stopPositions();
    stopNews();
  };
}
