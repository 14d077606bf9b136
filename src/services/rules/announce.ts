import { effect, type ReadonlySignal } from '@preact/signals-core';
import type { Decision, RiskState, Rule } from '../../contracts/rules';
import { contractSymbolOf } from '../../contracts/symbols';
import { pairOf, type Trade } from '../../contracts/trading';
import { usdt } from '../../contracts/sizing';
import { muted, success, type OutputLine } from '../terminal/output';
import { formatPnl, formatPrice } from '../trading/format';
import { TRADING_TEXT } from '../trading/messages';
import { CARED_SKIPS, type RulesStore } from './rules';
import { utcTime } from '../time';
import type { ToastTone } from '../toasts';

/**
 * Rules announce themselves: a line in the terminal when one fires, closes what it opened, or is held
 * back for a reason the user would care about, and the header's AUTO chip while any rule is on.
 */

const headlineOf = (text: string | null): string => {
  if (text === null) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? ` '${line.slice(0, 39).trimEnd()}…'` : ` '${line}'`;
};

/**
 * `rule 'Bad news short' → SHORT 0.019 ETH at 3,147.5300 on #130 'Bridge exploit…'. Bybit LIVE account
 * (key ab…cd): real funds.`: the fill, then the account it went to, as under a fill at the terminal.
 */
export function firedLine(d: Decision, headline: string | null, keyHint: string | null = null): string {
  const size = d.quantity === null ? '' : ` ${d.quantity} ${d.asset}`;
  const price =
    d.price === null ? '' : ` at ${formatPrice(contractSymbolOf(d.asset) ?? `${d.asset}USDT`, d.price)}`;
  const fee = d.fee === null ? '' : `, fee ${usdt(d.fee)} USDT`;
  const account = TRADING_TEXT.venueNote({ venue: d.account_venue, mode: d.account_mode, keyHint });
  return `rule '${d.rule_name}' → ${d.side.toUpperCase()}${size}${price}${fee} on #${d.signal_id}${headlineOf(headline)}. ${account}`;
}

/** `rule 'Bad news short' held back on #131: Daily budget of 5,000 USDT reached.` */
export function skippedLine(d: Decision): string {
  const why = d.detail ?? d.reason ?? 'skipped';
  return `rule '${d.rule_name}' held back on #${d.signal_id}: ${why}`;
}

/**
 * `rule 'scalp DOGE' closed DOGE long: take profit: 3.10% at 0.41; realised +0.12 USDT, fee 0.04 USDT`:
 * the exit's note and PnL from the ledger, its fee from the fill in the trade history when found.
 */
export function exitLine(d: Decision, fill: Pick<Trade, 'fee' | 'realizedPnl'> | null): string {
  const pnl = fill?.realizedPnl ?? d.exit_pnl;
  const realised = pnl === null ? '' : `; realised ${pnl === 0 ? '0.00' : formatPnl(pnl)} USDT`;
  // A fee the venue has not told yet is left out, never said to be 0.
  const fee = fill === null || fill.fee === null ? '' : `, fee ${usdt(fill.fee)} USDT`;
  return `rule '${d.rule_name}' closed ${d.asset} ${d.side}: ${d.exit ?? ''}${realised}${fee}`;
}

/**
 * The ledger with a decision the positions socket brought (an ask rule's proposal, confirmed here or over
 * Telegram, that filled): written in at once, newest first, so it is announced without waiting for the
 * next read of the ledger.
 */
export function withDecision(rows: readonly Decision[], d: Decision): readonly Decision[] {
  return rows.some((r) => r.id === d.id) ? rows.map((r) => (r.id === d.id ? d : r)) : [d, ...rows];
}

/** What the header's AUTO chip says: null while no rule is on. */
export interface AutoChip {
  text: string;
  /** `AUTO` or `AUTO OFF`: all a phone's header shows. */
  head: string;
  /** The rest of the text (` · 2 rules · 110 / 5,000 USDT today`), or empty. */
  detail: string;
  /** The kill switch is on: automated orders are off. */
  off: boolean;
  title: string;
}

export function autoChip(rules: readonly Rule[], risk: RiskState | null): AutoChip | null {
  const active = rules.filter((r) => r.isActive).length;
  if (active === 0) return null;
  const count = `${active} rule${active === 1 ? '' : 's'}`;
  if (risk?.kill_switch === true) {
    const until = risk.resume_at === null ? '' : ` until ${utcTime(risk.resume_at)}`;
    return {
      text: 'AUTO OFF',
      head: 'AUTO OFF',
      detail: '',
      off: true,
      title: `Kill switch on${until}: ${count} enabled, no automated orders are sent. Click for Trade Rules.`,
    };
  }
  const spent =
    risk === null
      ? ''
      : ` · ${usdt(risk.spent_today_usd).replace(/\.00$/, '')} / ${usdt(risk.daily_budget_usd).replace(/\.00$/, '')} USDT today`;
  return {
    text: `AUTO · ${count}${spent}`,
    head: 'AUTO',
    detail: ` · ${count}${spent}`,
    off: false,
    title: `${count} trading automatically. Click for Trade Rules.`,
  };
}

export interface AnnouncerDeps {
  loggedIn: ReadonlySignal<boolean>;
  store: RulesStore;
  print(lines: readonly OutputLine[]): void;
  /** Shows the same news as a toast: a fire or an exit as an event, a skip quietly. */
  toast(text: string, tone: ToastTone): void;
  now(): number;
  /** A signal's text by id, when the feed has it. */
  headline(signalId: string): string | null;
  /** The newest fills (to find a rule exit's fee); an empty list when they cannot be read. */
  recentTrades(): Promise<readonly Trade[]>;
  /** Reloads the risk state (the chip's budget and kill switch). */
  reloadRisk(): void;
  /** A key's hint (`ab…cd`) by the key's id, when known: the fired line names the account with it. */
  keyHint?(account: string): string | null;
}

/**
 * Watches the decision ledger and prints what is new since login: fired decisions, exits of positions
 * rules opened, and the skips in {@link CARED_SKIPS}, each once. Returns the disposer.
 */
export function startRuleAnnouncements(deps: AnnouncerDeps): () => void {
  let since = Number.POSITIVE_INFINITY;
  const announced = new Set<string>();
  const openSeen = new Set<string>();
  let disposed = false;

  const stopLogin = effect(() => {
    if (!deps.loggedIn.value) {
      since = Number.POSITIVE_INFINITY;
      announced.clear();
      openSeen.clear();
      return;
    }
    since = deps.now();
    deps.reloadRisk();
  });

  const exitWithFee = async (d: Decision): Promise<void> => {
    const opened = Date.parse(d.decided_at);
    const trades = await deps.recentTrades().catch(() => [] as readonly Trade[]);
    const fill =
      trades.find(
        (t) =>
          t.ruleId === d.rule_id &&
          t.symbol === pairOf(d.symbol) &&
          t.side === (d.side === 'long' ? 'sell' : 'buy') &&
          t.time >= opened,
      ) ?? null;
    if (disposed) return;
    const line = exitLine(d, fill);
    deps.print([success(line)]);
    deps.toast(line, 'event');
  };

  const stopLedger = effect(() => {
    const rows = deps.store.ledger.value;
    if (!deps.loggedIn.peek()) return;
    const lines: OutputLine[] = [];
    let moved = false;
    // The ledger is newest first: announce in the order things happened.
    for (const d of [...rows].reverse()) {
      const recent = Date.parse(d.decided_at) >= since - 1000;
      if (d.outcome === 'fired' && !announced.has(`fired ${d.id}`)) {
        announced.add(`fired ${d.id}`);
        if (recent) {
          const line = firedLine(d, deps.headline(d.signal_id), deps.keyHint?.(d.account) ?? null);
          lines.push(success(line));
          deps.toast(line, 'event');
          moved = true;
        }
      }
      if (d.exit === 'open') openSeen.add(d.id);
      if (d.exit !== null && d.exit !== 'open' && !announced.has(`exit ${d.id}`)) {
        announced.add(`exit ${d.id}`);
        if (recent || openSeen.has(d.id)) void exitWithFee(d);
      }
      if (d.outcome === 'skipped' && d.reason !== null && !announced.has(`skip ${d.id}`)) {
        announced.add(`skip ${d.id}`);
        if (recent && CARED_SKIPS.has(d.reason)) {
          const line = skippedLine(d);
          lines.push(muted(line));
          deps.toast(line, 'quiet');
        }
      }
    }
    if (lines.length > 0) deps.print(lines);
    if (moved) deps.reloadRisk();
  });

  return () => {
    disposed = true;
    stopLogin();
    stopLedger();
  };
}
