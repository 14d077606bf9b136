import type { BusEventMap } from '../../../src/contracts/events';
import type { NotificationSettings } from '../../../src/contracts/notifications';
import type { Decision } from '../../../src/contracts/ruleReports';
import type { RetractionKind, Signal } from '../../../src/contracts/signals';
import { findTicker } from '../../../src/contracts/symbols';
import { isTradable } from '../../../src/contracts/tradability';
import { VENUE_LABELS } from '../../../src/contracts/venues';
import type { Note, NoteAction } from './channels';

/**
 * The amount of an alert's Long/Short buttons. The quick amounts a user picks live in their browser only,
 * so the server offers the first default quick amount.
 */
export const ALERT_AMOUNT_USD = 100;

/** What each notification says: its title, body and buttons, the same on every channel. */

export const money = (n: number) =>
  `${n < 0 ? '-' : ''}$${Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
export const signed = (n: number) => `${n >= 0 ? '+' : '-'}${money(Math.abs(n))}`;
export const price = (n: number) => n.toLocaleString('en-US', { maximumSignificantDigits: 8 });
/** `paper`, `Bybit LIVE key`, `OKX demo key`: where the decision's order went. */
const venue = (d: Pick<Decision, 'account_mode' | 'account_venue'>) =>
  d.account_mode === 'paper'
    ? 'paper'
    : `${d.account_venue === 'paper' ? '' : `${VENUE_LABELS[d.account_venue]} `}${d.account_mode === 'demo' ? 'demo key' : 'LIVE key'}`;
export const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
/** The headline: the first line of a signal's text. */
export const headlineOf = (signal: Pick<Signal, 'content'>) =>
  clip(signal.content.split('\n')[0]?.trim() ?? '', 140);

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `BTC/USDT` → `BTCUSDT`. */
export const bare = (symbol: string) => symbol.replace('/', '').toUpperCase();
const accountText = (account: string) => (account === 'paper' ? 'paper' : `key ${account.slice(0, 8)}`);
/** Close buttons under one question: a row that fits a phone. */
const MAX_CLOSE_BUTTONS = 4;

const KIND_TEXT: Record<RetractionKind, string> = {
  denial: 'Denied',
  correction: 'Corrected',
  withdrawal: 'Withdrawn',
  compromised: 'Posted from a hacked account',
};
export const kindText = (kind: RetractionKind) => KIND_TEXT[kind];

export function alertNote(
  userId: string,
  signal: Signal,
  headline: string,
  priceOf: (symbol: string) => number | undefined,
): Note {
  const analysis = signal.analysis.status === 'completed' ? signal.analysis : null;
  const moves = signal.assets.slice(0, 4).map((asset) => {
    const arrival = signal.initial_prices[asset];
    const now = priceOf(findTicker(asset)?.symbol ?? `${asset}USDT`);
    if (arrival === undefined || now === undefined || arrival <= 0) return asset;
    const change = ((now - arrival) / arrival) * 100;
    return `${asset} ${change >= 0 ? '+' : ''}${change.toFixed(2)}% since arrival`;
  });
  const actions: NoteAction[] = [];
  // A stablecoin or a coin without a contract is named in the alert, never offered as a Long/Short.
  if (signal.asset !== null && isTradable(signal.asset)) {
    const symbol = findTicker(signal.asset)?.symbol ?? `${signal.asset}USDT`;
    for (const side of ['long', 'short'] as const) {
      actions.push({
        label: `${side === 'long' ? 'Long' : 'Short'} $${ALERT_AMOUNT_USD}`,
        action: { kind: 'order', symbol, side, amountUsd: ALERT_AMOUNT_USD, signalId: signal.id },
      });
    }
  }
  return {
    kind: 'alert',
    userId,
    title: headline,
    body: [
      analysis === null ? null : `${cap(analysis.nlp.sentiment)} · impact ${analysis.impact_score}`,
      moves.length > 0 ? moves.join(', ') : null,
      analysis === null ? null : clip(analysis.nlp.reasoning, 240),
    ]
      .filter((l) => l !== null && l !== '')
      .join('\n'),
    url: signal.metadata.url,
    actions,
    ref: `signal:${signal.id}`,
  };
}

export function decisionNote(
  event: BusEventMap['rules.decided'],
  settings: NotificationSettings,
): Note | null {
  const d = event.decision;
  const about = event.headline ? `\n${clip(event.headline, 140)}` : '';
  const ref = `decision:${d.id}`;
  const base = { userId: event.userId, url: null, ref };
  switch (event.event) {
    case 'fired': {
      if (!settings.fills || d.outcome !== 'fired' || d.quantity === null) return null;
      const at = d.price === null ? '' : ` at ${price(d.price)}`;
      return {
        ...base,
        kind: 'fill',
        title: `Rule '${d.rule_name}' ${d.side === 'long' ? 'bought' : 'sold'} ${d.quantity} ${d.asset}${at}`,
        body: `On ${venue(d)}${d.notional === null ? '' : `, ${money(d.notional)}`}${d.fee === null ? '' : `, fee ${money(d.fee)}`}.${about}`,
        actions: [{ label: 'Close', action: { kind: 'close', symbol: d.symbol, account: d.account } }],
      };
    }
    case 'exit': {
      if (!settings.fills) return null;
      const pnl = d.exit_pnl === null ? '' : ` ${signed(d.exit_pnl)}`;
      return {
        ...base,
        kind: 'exit',
        title: `Rule '${d.rule_name}' closed ${d.asset} ${d.side}${pnl}`,
        body: `On ${venue(d)}${d.exit === null ? '' : `: ${d.exit}`}.${about}`,
        ref: `exit:${d.id}`,
      };
    }
    case 'exit_failing':
      // Told whatever the switches say: a position the rule meant to close is still open.
      return {
        ...base,
        kind: 'exit',
        title: `Rule '${d.rule_name}' could not close ${d.asset} ${d.side} yet`,
        body: [`On ${venue(d)}.`, d.exit_note ?? null, 'It keeps trying; you can close it yourself.']
          .filter((l) => l !== null)
          .join('\n'),
        actions: [{ label: 'Close', action: { kind: 'close', symbol: d.symbol, account: d.account } }],
        ref: `exit:${d.id}`,
      };
    case 'asking':
      // The user asked to be asked: a proposal goes out whatever the other switches say.
      return {
        ...base,
        kind: 'proposal',
        title: `Rule '${d.rule_name}' proposes: ${d.side} ${d.asset} for ${money(d.amount_usd)}`,
        body: `On ${venue(d)}${d.impact === null ? '' : `, impact ${d.impact}`}${d.sentiment === null ? '' : `, ${d.sentiment}`}.${about}`,
        actions: [
          { label: 'Confirm', action: { kind: 'answer', decisionId: d.id, answer: 'confirm' } },
          { label: 'Reject', action: { kind: 'answer', decisionId: d.id, answer: 'reject' } },
        ],
      };
    case 'answered':
      return {
        ...base,
        kind: 'answered',
        replaces: true,
        title: `Rule '${d.rule_name}': ${d.side} ${d.asset} ${d.outcome === 'fired' ? 'confirmed and placed' : 'not placed'}`,
        body: d.outcome === 'fired' ? `On ${venue(d)}.` : (d.detail ?? 'Rejected or expired.'),
      };
    default:
      return null;
  }
}

export function disputeNote(
  userId: string,
  event: BusEventMap['signal.disputed'],
  closes: readonly { asset: string; symbol: string; account: string }[],
): Note {
  const actions: NoteAction[] = [];
  const labels = new Set<string>();
  for (const c of closes) {
    if (
      actions.some(
        (a) => a.action.kind === 'close' && a.action.symbol === c.symbol && a.action.account === c.account,
      )
    )
      continue;
    const label = labels.has(c.asset) ? `Close ${c.asset} (${accountText(c.account)})` : `Close ${c.asset}`;
    labels.add(c.asset);
    actions.push({ label, action: { kind: 'close', symbol: c.symbol, account: c.account } });
  }
  const story = clip(event.headline, 140) || `signal #${event.disputedId}`;
  const by = clip(event.sourceName, 60);
  return {
    kind: 'dispute',
    userId,
    title:
      closes.length > 0
        ? `A weaker source disputes a story you traded: ${story} — disputed by ${by}. Nothing was closed.`
        : `A weaker source disputes a story you were alerted on: ${story} — disputed by ${by}. Nothing was closed.`,
    body: `${kindText(event.kind)}, unconfirmed (#${event.disputeId}): ${clip(event.reason, 200)}`,
    actions: actions.slice(0, MAX_CLOSE_BUTTONS),
    ref: `dispute:${event.disputedId}`,
  };
}
