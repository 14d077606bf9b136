import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { DialogDetails, Dialogs } from './trading/dialogs';

/** One question (or notice) the app's own dialog shows. */
export interface DialogRequest {
  /** Tells two requests with the same text apart (a new dialog, with focus moved into it again). */
  id: number;
  kind: 'confirm' | 'alert';
  /** The spec's text, word for word. */
  message: string;
  title: string;
  details: readonly string[];
  confirmLabel: string;
  /** The yes button has focus first, so Enter answers yes (Esc still answers no). */
  enterConfirms: boolean;
}

/** The in-app confirm and alert: one at a time, in the order they were asked. */
export interface Confirmations extends Dialogs {
  /** The one on screen, or null. */
  readonly current: ReadonlySignal<DialogRequest | null>;
  /** The person's answer to the one on screen: true for the confirm button, false for Cancel or Esc. */
  answer(yes: boolean): void;
}

const TITLES = { confirm: 'Please confirm', alert: 'Notice' } as const;

export function createConfirmations(): Confirmations {
  const current = signal<DialogRequest | null>(null, { name: 'confirmations.current' });
  const waiting: { request: DialogRequest; settle: (yes: boolean) => void }[] = [];
  let settleCurrent: ((yes: boolean) => void) | null = null;
  let count = 0;

  const next = (): void => {
    const item = waiting.shift();
    settleCurrent = item?.settle ?? null;
    current.value = item?.request ?? null;
  };
  const ask = (kind: DialogRequest['kind'], message: string, more: DialogDetails = {}): Promise<boolean> =>
    new Promise<boolean>((settle) => {
      count += 1;
      const request: DialogRequest = {
        id: count,
        kind,
        message,
        title: more.title ?? TITLES[kind],
        details: more.details ?? [],
        confirmLabel: more.confirmLabel ?? 'OK',
        enterConfirms: more.enterConfirms ?? false,
      };
      waiting.push({ request, settle });
      if (current.peek() === null) next();
    });

  return {
    current,
    confirm: (message, more) => ask('confirm', message, more),
    alert(message, more) {
      void ask('alert', message, more);
    },
    answer(yes) {
      const settle = settleCurrent;
      if (settle === null) return;
      next();
      settle(yes);
    },
  };
}
