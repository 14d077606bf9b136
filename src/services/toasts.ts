import { signal, type ReadonlySignal } from '@preact/signals-core';

/** `event`: something happened on the user's behalf (a rule fired); `quiet`: something was held back. */
export type ToastTone = 'event' | 'quiet';

export interface Toast {
  id: number;
  tone: ToastTone;
  text: string;
}

export interface Toasts {
  /** The toasts on screen, oldest first. */
  readonly shown: ReadonlySignal<readonly Toast[]>;
  /** Shows a toast; it goes away by itself (a quiet one sooner), or with {@link dismiss}. */
  push(text: string, tone: ToastTone): void;
  dismiss(id: number): void;
  /** Clears every toast and its timer. */
  dispose(): void;
}

/** How long a toast stays, in ms; at most {@link MAX_SHOWN} at once (the oldest goes first). */
export const TOAST_MS: Record<ToastTone, number> = { event: 8_000, quiet: 5_000 };
export const MAX_SHOWN = 4;

export function createToasts(setTimer: (fn: () => void, ms: number) => () => void): Toasts {
  const shown = signal<readonly Toast[]>([], { name: 'toasts.shown' });
  const timers = new Map<number, () => void>();
  let next = 1;
  const dismiss = (id: number): void => {
    timers.get(id)?.();
    timers.delete(id);
    shown.value = shown.value.filter((t) => t.id !== id);
  };
  return {
    shown,
    push(text, tone) {
      const id = next++;
      shown.value = [...shown.value, { id, tone, text }];
      timers.set(
        id,
        setTimer(() => dismiss(id), TOAST_MS[tone]),
      );
      const extra = shown.value.length - MAX_SHOWN;
      for (const old of shown.value.slice(0, Math.max(0, extra))) dismiss(old.id);
    },
    dismiss,
    dispose() {
      for (const cancel of timers.values()) cancel();
      timers.clear();
      shown.value = [];
    },
  };
}
