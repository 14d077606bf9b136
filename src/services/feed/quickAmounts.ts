import { signal, type ReadonlySignal } from '@preact/signals-core';
import { readJson, writeJson, type StoragePort } from '../storage';
import { FEED_KEYS } from './types';

/** docs/product.md §5 quick amount messages, word for word. */
export const AMOUNT_TEXT = {
  invalid: 'Lütfen geçerli bir miktar girin.',
  duplicate: 'Bu miktar zaten mevcut.',
} as const;

/** The amounts a fresh browser starts with (the command line completes the same ones). */
export const DEFAULT_QUICK_AMOUNTS: readonly number[] = [100, 250, 1000, 5000];

export type AmountResult = { ok: true; amounts: readonly number[] } | { ok: false; message: string };

const isAmounts = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((n) => typeof n === 'number' && Number.isFinite(n) && n > 0);

/** A typed amount: a number above 0, `k` for thousands (`2.5k`); null otherwise. */
export function parseAmount(input: string | number): number | null {
  if (typeof input === 'number') return Number.isFinite(input) && input > 0 ? input : null;
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(k?)\s*$/i.exec(input);
  if (match === null) return null;
  const value = Number(match[1]) * (match[2] === '' ? 1 : 1000);
  return Number.isFinite(value) && value > 0 ? Number(value.toFixed(8)) : null;
}

/** docs/product.md §9: amounts of 1000 or more show with a k suffix (`1k`, `2.5k`). */
export function formatQuickAmount(amount: number): string {
  if (amount < 1000) return String(amount);
  const k = amount / 1000;
  return `${Number.isInteger(k) ? k : Number(k.toFixed(3))}k`;
}

export interface QuickAmountsStore {
  /** Ascending. */
  readonly amounts: ReadonlySignal<readonly number[]>;
  add(input: string | number): AmountResult;
  /** False when it was not in the list. */
  remove(amount: number): boolean;
}

/** The quick-trade amounts (docs/product.md §3), kept ascending in `quickTradeAmounts`. */
export function createQuickAmountsStore(storage: StoragePort): QuickAmountsStore {
  const stored = readJson(storage, FEED_KEYS.amounts, isAmounts, [...DEFAULT_QUICK_AMOUNTS]);
  const amounts = signal<readonly number[]>(
    [...new Set(stored)].sort((a, b) => a - b),
    {
      name: 'feed.quickAmounts',
    },
  );
  const save = (next: number[]): readonly number[] => {
    const sorted = next.sort((a, b) => a - b);
    amounts.value = sorted;
    writeJson(storage, FEED_KEYS.amounts, sorted);
    return sorted;
  };
  return {
    amounts,
    add(input) {
      const amount = parseAmount(input);
      if (amount === null) return { ok: false, message: AMOUNT_TEXT.invalid };
      if (amounts.peek().includes(amount)) return { ok: false, message: AMOUNT_TEXT.duplicate };
      return { ok: true, amounts: save([...amounts.peek(), amount]) };
    },
    remove(amount) {
      if (!amounts.peek().includes(amount)) return false;
      save(amounts.peek().filter((a) => a !== amount));
      return true;
    },
  };
}
