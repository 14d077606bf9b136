import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import { ProtectionInput } from '../../contracts/protection';
import { readJson, STORAGE_PREFIX, writeJson, type StoragePort } from '../storage';

/**
 * The default bracket of card and quick trades: a stop loss and a take profit, each a percent of the
 * entry, sent as the order's protection when it is on. Off by default; kept in this browser beside the
 * quick-trade amounts and edited in the same place (and with `amounts bracket`).
 */

export interface QuickBracket {
  on: boolean;
  /** % of the entry; null for no stop. */
  stopLossPct: number | null;
  /** % of the entry; null for no target. */
  takeProfitPct: number | null;
}

export const QUICK_BRACKET_KEY = `${STORAGE_PREFIX}quickTradeBracket`;

export const DEFAULT_QUICK_BRACKET: QuickBracket = { on: false, stopLossPct: 2, takeProfitPct: 5 };

export const BRACKET_TEXT = {
  percent: (name: string, typed: string) => `${name}: '${typed}' is not a percent (e.g. 2 or 2%).`,
  empty: 'Give a stop loss or a take profit (or both) to turn the bracket on.',
} as const;

const isPct = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v));
const isBracket = (v: unknown): v is QuickBracket =>
  typeof v === 'object' &&
  v !== null &&
  'on' in v &&
  typeof v.on === 'boolean' &&
  'stopLossPct' in v &&
  isPct(v.stopLossPct) &&
  'takeProfitPct' in v &&
  isPct(v.takeProfitPct);

/** The protection a bracket stands for, or undefined when it is off or holds no leg. */
export function bracketProtection(b: QuickBracket): ProtectionInput | undefined {
  if (!b.on || (b.stopLossPct === null && b.takeProfitPct === null)) return undefined;
  return {
    ...(b.stopLossPct === null ? {} : { stop_loss_pct: b.stopLossPct }),
    ...(b.takeProfitPct === null ? {} : { take_profit_pct: b.takeProfitPct }),
  };
}

/** `SL 2% · TP 5%`, `SL 2%`, or `off`. */
export function bracketText(b: QuickBracket): string {
  const legs = [
    ...(b.stopLossPct === null ? [] : [`SL ${b.stopLossPct}%`]),
    ...(b.takeProfitPct === null ? [] : [`TP ${b.takeProfitPct}%`]),
  ].join(' · ');
  return b.on ? legs : `off${legs === '' ? '' : ` (${legs} when on)`}`;
}

export type BracketResult = { ok: true; bracket: QuickBracket } | { ok: false; message: string };

export interface QuickBracketStore {
  readonly bracket: ReadonlySignal<QuickBracket>;
  /** What card and quick trades send as `protection`: undefined while the bracket is off. */
  readonly protection: ReadonlySignal<ProtectionInput | undefined>;
  /** Turns it on or off; on needs a leg. */
  setOn(on: boolean): BracketResult;
  /** Sets the percentages as typed (`2`, `2%`; blank for none), checked as the server checks them. */
  setLegs(stopLoss: string, takeProfit: string): BracketResult;
}

/** `2`, `2%`, ` 2.5 % ` → the number; blank → null; anything else → undefined. */
function readPct(typed: string): number | null | undefined {
  const text = typed.trim();
  if (text === '') return null;
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*%?$/.exec(text);
  return match === null ? undefined : Number(match[1]);
}

export function createQuickBracketStore(storage: StoragePort): QuickBracketStore {
  const bracket = signal<QuickBracket>(
    readJson(storage, QUICK_BRACKET_KEY, isBracket, DEFAULT_QUICK_BRACKET),
    {
      name: 'feed.quickBracket',
    },
  );
  const save = (next: QuickBracket): BracketResult => {
    bracket.value = next;
    writeJson(storage, QUICK_BRACKET_KEY, next);
    return { ok: true, bracket: next };
  };
  return {
    bracket,
    protection: computed(() => bracketProtection(bracket.value), { name: 'feed.quickBracket.protection' }),
    setOn(on) {
      const now = bracket.peek();
      if (on && now.stopLossPct === null && now.takeProfitPct === null) {
        return { ok: false, message: BRACKET_TEXT.empty };
      }
      return save({ ...now, on });
    },
    setLegs(stopLoss, takeProfit) {
      const sl = readPct(stopLoss);
      if (sl === undefined) return { ok: false, message: BRACKET_TEXT.percent('Stop loss', stopLoss.trim()) };
      const tp = readPct(takeProfit);
      if (tp === undefined)
        return { ok: false, message: BRACKET_TEXT.percent('Take profit', takeProfit.trim()) };
      const checked = ProtectionInput.safeParse({
        ...(sl === null ? {} : { stop_loss_pct: sl }),
        ...(tp === null ? {} : { take_profit_pct: tp }),
      });
      if (!checked.success)
        return { ok: false, message: checked.error.issues[0]?.message ?? BRACKET_TEXT.empty };
      const now = bracket.peek();
      // Emptied, a bracket that was on goes off: it would protect nothing.
      return save({ on: now.on && (sl !== null || tp !== null), stopLossPct: sl, takeProfitPct: tp });
    },
  };
}
