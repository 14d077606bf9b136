import { signal, type ReadonlySignal } from '@preact/signals-core';
import { ProtectionInput, protectionAsked, type PositionProtection } from '../../contracts/protection';
import type { AccountVenue } from '../../contracts/venues';
import { readDuration, readLevel, type ProtectionParse } from '../../commands/grammar/protection';
import type { ApiClient } from '../api/client';
import { muted, success, type OutputLine } from '../terminal/output';
import type { Dialogs } from './dialogs';
import type { Outcome } from './orders';
import { moveStopToBreakEven, removeProtection, setProtection, type ProtectionAnswer } from './protection';
import type { PositionsStore } from './positionsStore';
import { receiptLines } from './protectionView';

/**
 * The Open Positions pane's protection controls: the edit form of a row (stop loss and take profit as a
 * percent or a price, trailing stop %, exit after), Remove and Break-even. Each call's refusal is the
 * server's message as written, shown on the row; each answer is also written in the terminal.
 */

/** What the form's fields hold, as typed; blank is no leg. */
export interface ProtectionFields {
  /** `2%` or `98000`. */
  stopLoss: string;
  takeProfit: string;
  /** `1` or `1%`. */
  trailing: string;
  /** `30` (minutes), `30m`, `2h`, `1d`. */
  exitAfter: string;
}

export const EMPTY_FIELDS: ProtectionFields = { stopLoss: '', takeProfit: '', trailing: '', exitAfter: '' };

export const EDITOR_TEXT = {
  level: (name: string, typed: string) =>
    `${name}: '${typed}' is neither a percent (2%) nor a price (98000).`,
  trailing: (typed: string) => `Trailing stop: '${typed}' is not a percent (1 or 1%).`,
  exitAfter: (typed: string) => `Exit after: '${typed}' is not a time (30 minutes, 30m, 2h or 1d).`,
  empty: 'Fill in at least one leg, or use Remove.',
  confirmRemove: (pair: string) => `Remove the protection of ${pair}?`,
  removeDetails: 'Its stop loss, take profit, trailing stop and time exit go; the position stays open.',
} as const;

/** The form's fields as a protection to PUT, or what is wrong with them. */
export function parseProtectionFields(fields: ProtectionFields): ProtectionParse {
  const draft: Record<string, number> = {};
  const level = (typed: string, name: string, key: 'stop_loss' | 'take_profit'): string | null => {
    const text = typed.trim();
    if (text === '') return null;
    const read = readLevel(text);
    if (read === null) return EDITOR_TEXT.level(name, text);
    if ('pct' in read) draft[`${key}_pct`] = read.pct;
    else draft[`${key}_price`] = read.price;
    return null;
  };
  const trailing = (): string | null => {
    const text = fields.trailing.trim();
    if (text === '') return null;
    const read = readLevel(text.endsWith('%') ? text : `${text}%`);
    if (read === null || !('pct' in read)) return EDITOR_TEXT.trailing(text);
    draft.trailing_pct = read.pct;
    return null;
  };
  const exitAfter = (): string | null => {
    const text = fields.exitAfter.trim();
    if (text === '') return null;
    const minutes = /^\d+$/.test(text) ? Number(text) : readDuration(text);
    if (minutes === null) return EDITOR_TEXT.exitAfter(text);
    draft.exit_after_min = minutes;
    return null;
  };
  const wrong =
    level(fields.stopLoss, 'Stop loss', 'stop_loss') ??
    level(fields.takeProfit, 'Take profit', 'take_profit') ??
    trailing() ??
    exitAfter();
  if (wrong !== null) return { ok: false, message: wrong };
  const checked = ProtectionInput.safeParse(draft);
  if (!checked.success) return { ok: false, message: checked.error.issues[0]?.message ?? EDITOR_TEXT.empty };
  if (!protectionAsked(checked.data)) return { ok: false, message: EDITOR_TEXT.empty };
  return { ok: true, protection: checked.data };
}

const live = (leg: { state: string } | null): boolean =>
  leg !== null && leg.state !== 'triggered' && leg.state !== 'refused';

/**
 * The form as it opens on a row: the legs still working, as prices (the server keeps a percent as the
 * price it stood for), the trailing stop's %, and the minutes left to the time exit (`now`).
 */
export function fieldsOf(p: PositionProtection, now: number): ProtectionFields {
  const exitAt = p.exit_at === null ? NaN : Date.parse(p.exit_at);
  return {
    stopLoss: p.stop_loss !== null && live(p.stop_loss) ? String(p.stop_loss.price) : '',
    takeProfit: p.take_profit !== null && live(p.take_profit) ? String(p.take_profit.price) : '',
    trailing: p.trailing !== null && live(p.trailing) ? String(p.trailing.callback_pct) : '',
    exitAfter: Number.isFinite(exitAt) && exitAt > now ? String(Math.ceil((exitAt - now) / 60_000)) : '',
  };
}

/** A row's last refusal. */
export interface RowError {
  symbol: string;
  message: string;
}

export interface ProtectionEditor {
  /** The symbol whose form is open, or null. */
  readonly editing: ReadonlySignal<string | null>;
  /** Symbols with a protection call in flight (their controls are disabled). */
  readonly busy: ReadonlySignal<ReadonlySet<string>>;
  readonly error: ReadonlySignal<RowError | null>;
  open(symbol: string): void;
  close(): void;
  /** Checks the fields and PUTs them; true when the server took them (the form closes). */
  save(symbol: string, fields: ProtectionFields): Promise<boolean>;
  /** Asks, then DELETEs. */
  remove(symbol: string): Promise<void>;
  breakEven(symbol: string): Promise<void>;
}

export interface ProtectionEditorDeps {
  trading: ApiClient;
  positions: PositionsStore;
  dialogs: Dialogs;
  /** The account orders go to: where the legs rest, in the terminal's words. */
  accountVenue?: ReadonlySignal<AccountVenue>;
  /** Where each answer is written down (the app: the terminal). */
  print?: (lines: OutputLine[]) => void;
}

export function createProtectionEditor(deps: ProtectionEditorDeps): ProtectionEditor {
  const editing = signal<string | null>(null, { name: 'protectionEditor.editing' });
  const busy = signal<ReadonlySet<string>>(new Set(), { name: 'protectionEditor.busy' });
  const error = signal<RowError | null>(null, { name: 'protectionEditor.error' });
  const print = deps.print ?? (() => undefined);
  const venue = (): AccountVenue => deps.accountVenue?.peek() ?? 'paper';

  const setBusy = (symbol: string, on: boolean): void => {
    const next = new Set(busy.peek());
    if (on) next.add(symbol);
    else next.delete(symbol);
    busy.value = next;
  };

  /** Runs one call for a row: one at a time per row, its refusal on the row, its answer in the terminal. */
  const run = async <T>(
    symbol: string,
    call: () => Promise<Outcome<T>>,
    lines: (value: T) => OutputLine[],
  ): Promise<boolean> => {
    if (busy.peek().has(symbol)) return false;
    setBusy(symbol, true);
    error.value = null;
    try {
      const answer = await call();
      if (!answer.ok) {
        error.value = { symbol, message: answer.message };
        return false;
      }
      print(lines(answer.value));
      return true;
    } finally {
      setBusy(symbol, false);
      deps.positions.requestRefresh();
    }
  };
  // The answer's message spells the same legs: the terminal gets them once, in its own words, under
  // the position they belong to (nothing typed there says which).
  const receipt =
    (symbol: string) =>
    (answer: ProtectionAnswer): OutputLine[] => [
      muted(`Protection of ${symbol}:`),
      ...receiptLines(answer.protection, venue(), symbol),
    ];

  return {
    editing,
    busy,
    error,
    open(symbol) {
      error.value = null;
      editing.value = symbol;
    },
    close() {
      error.value = null;
      editing.value = null;
    },
    async save(symbol, fields) {
      const parsed = parseProtectionFields(fields);
      if (!parsed.ok) {
        error.value = { symbol, message: parsed.message };
        return false;
      }
      const saved = await run(
        symbol,
        () => setProtection(deps.trading, symbol, parsed.protection),
        receipt(symbol),
      );
      if (saved && editing.peek() === symbol) editing.value = null;
      return saved;
    },
    async remove(symbol) {
      const asked = await deps.dialogs.confirm(EDITOR_TEXT.confirmRemove(symbol), {
        title: `Remove protection of ${symbol}`,
        details: [EDITOR_TEXT.removeDetails],
        confirmLabel: 'Remove protection',
      });
      if (!asked) return;
      const removed = await run(
        symbol,
        () => removeProtection(deps.trading, symbol),
        (answer) => [success(answer.message)],
      );
      if (removed && editing.peek() === symbol) editing.value = null;
    },
    async breakEven(symbol) {
      await run(symbol, () => moveStopToBreakEven(deps.trading, symbol), receipt(symbol));
    },
  };
}
