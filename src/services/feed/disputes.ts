import { effect, type ReadonlySignal } from '@preact/signals-core';
import type { Decision } from '../../contracts/rules';
import type { Signal } from '../../contracts/signals';
import type { Position } from '../../contracts/trading';
import type { Disposer } from '../clock';
import { info, type OutputLine } from '../terminal/output';
import type { ToastAction } from '../toasts';
import type { FeedChange } from './feedStore';

/**
 * A story a less trusted source disputes stays open for those who hold it: nothing was closed. A user
 * who holds a position in it, or whose rule decided on it, is told in a toast that stays (and a line in
 * the terminal), with Close running `close <asset>`.
 */

/** One signal from the stream, with the card it replaces (if the list held it) and what it did to the list. */
export type StreamedSignal = (incoming: Signal, before: Signal | undefined, change: FeedChange) => void;

/**
 * Whether the stream's `incoming` tells of a dispute the browser has not seen: it carries a dispute (and
 * no retraction, which says more) that the card it replaces did not. A story the list did not hold counts
 * when the stream sent it again as old news (placed by age, or older than the whole list): a new card
 * born disputed is a new report of a disputed story, not news of the dispute.
 */
export function newlyDisputed(incoming: Signal, before: Signal | undefined, change: FeedChange): boolean {
  if (incoming.dispute == null || incoming.retraction != null) return false;
  if (before !== undefined) return before.dispute == null && before.retraction == null;
  return change.kind === 'late' || change.kind === 'ignored';
}

const headlineOf = (content: string): string => {
  const line = (content.split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99).trimEnd()}…` : line;
};

/** `BTC/USDT` → `BTC`. */
const baseOf = (symbol: string): string =>
  (symbol.split('/')[0] ?? symbol).replace(/USDT$/i, '').toUpperCase();

export interface DisputeNote {
  /** `Disputed by X: <headline>. Nothing was closed.` */
  text: string;
  /** The asset Close closes: one the user holds a position in (a rule's first), or null. */
  asset: string | null;
}

/**
 * What a disputed story tells this user, or null when they hold nothing of it: no open position in its
 * assets and no rule decision on it (a skipped one is nothing held).
 */
export function disputeNote(
  s: Signal,
  held: { positions: readonly Position[]; ledger: readonly Decision[] },
): DisputeNote | null {
  const dispute = s.dispute;
  if (dispute == null) return null;
  const decided = held.ledger.filter((d) => d.signal_id === s.id && d.outcome !== 'skipped');
  const open = new Set(held.positions.map((p) => baseOf(p.symbol)));
  const asset = [...decided.map((d) => d.asset), ...s.assets].find((a) => open.has(a.toUpperCase())) ?? null;
  if (decided.length === 0 && asset === null) return null;
  return { text: `Disputed by ${dispute.source_name}: ${headlineOf(s.content)}. Nothing was closed.`, asset };
}

export interface DisputeToastsDeps {
  /** Hears every signal the stream brings (see FeedService.onSignal). */
  subscribe(listener: StreamedSignal): Disposer;
  loggedIn: ReadonlySignal<boolean>;
  positions: ReadonlySignal<readonly Position[]>;
  ledger: ReadonlySignal<readonly Decision[]>;
  /** Shows a toast that stays until dismissed, with its Close (or none). */
  toast(text: string, action: ToastAction | null): void;
  print(lines: readonly OutputLine[]): void;
  /** Runs a command line as a click does (`close sol`). */
  run(line: string): Promise<unknown>;
}

/** Tells of each story newly disputed that the user holds, once per story while signed in. Returns the disposer. */
export function startDisputeToasts(deps: DisputeToastsDeps): Disposer {
  const told = new Set<string>();
  const stopLogin = effect(() => {
    if (!deps.loggedIn.value) told.clear();
  });
  const stopStream = deps.subscribe((incoming, before, change) => {
    if (!deps.loggedIn.peek() || told.has(incoming.id) || !newlyDisputed(incoming, before, change)) return;
    const note = disputeNote(incoming, { positions: deps.positions.peek(), ledger: deps.ledger.peek() });
    if (note === null) return;
    told.add(incoming.id);
    deps.print([info(note.text)]);
    const asset = note.asset;
    deps.toast(
      note.text,
      asset === null
        ? null
        : { label: `Close ${asset}`, run: () => deps.run(`close ${asset.toLowerCase()}`) },
    );
  });
  return () => {
    stopStream();
    stopLogin();
    told.clear();
  };
}
