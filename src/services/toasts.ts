import { signal, type ReadonlySignal } from '@preact/signals-core';

/**
 * `event`: something happened on the user's behalf (a rule fired); `quiet`: something was held back;
 * `success` / `error`: an order the user placed from a control filled, or was refused.
 */
export type ToastTone = 'event' | 'quiet' | 'success' | 'error';

/** A button on a toast: what it says, and the command it runs (the one a user would type). */
export interface ToastAction {
  label: string;
  run(): Promise<unknown>;
}

export interface Toast {
  id: number;
  tone: ToastTone;
  text: string;
  /** Stays until dismissed or acted on, instead of going away by itself. */
  sticky: boolean;
  action: ToastAction | null;
}

export interface ToastOptions {
  sticky?: boolean;
  action?: ToastAction;
  /** Kept in the Recent list once gone; by default fills, refusals and rule events are, quiet ones not. */
  keep?: boolean;
}

/** A toast that mattered, kept after it went away: the Recent list under the toasts. */
export interface RecentToast {
  id: number;
  tone: ToastTone;
  text: string;
  /** When it was shown (ms). */
  at: number;
}

export interface Toasts {
  /** The toasts on screen, oldest first. */
  readonly shown: ReadonlySignal<readonly Toast[]>;
  /**
   * Shows a toast; it goes away by itself (a quiet one sooner), or with {@link dismiss}. A sticky one
   * stays until dismissed or acted on: at most {@link MAX_STICKY} of them, beside the others.
   */
  push(text: string, tone: ToastTone, options?: ToastOptions): void;
  /** Runs a toast's action, once, and takes the toast away. */
  act(id: number): Promise<void>;
  dismiss(id: number): void;
  /** The last {@link RECENT_KEPT} toasts that mattered, newest first: they stay findable once gone. */
  readonly recent: ReadonlySignal<readonly RecentToast[]>;
  /** Kept since the Recent list was last looked at. */
  readonly unread: ReadonlySignal<number>;
  /** The Recent list was opened: nothing is unread. */
  markRead(): void;
  /** Clears every toast and its timer. */
  dispose(): void;
}

/** How long a toast stays, in ms; at most {@link MAX_SHOWN} at once (the oldest goes first). */
export const TOAST_MS: Record<ToastTone, number> = {
  event: 8_000,
  quiet: 5_000,
  success: 8_000,
  error: 8_000,
};
/** Toasts the Recent list keeps. */
export const RECENT_KEPT = 30;
export const MAX_SHOWN = 4;
/** Sticky toasts kept at once (the oldest goes first); they never push the others out, nor are pushed. */
export const MAX_STICKY = 3;

export function createToasts(
  setTimer: (fn: () => void, ms: number) => () => void,
  now: () => number = Date.now,
): Toasts {
  const shown = signal<readonly Toast[]>([], { name: 'toasts.shown' });
  const recent = signal<readonly RecentToast[]>([], { name: 'toasts.recent' });
  const unread = signal(0, { name: 'toasts.unread' });
  const timers = new Map<number, () => void>();
  let next = 1;
  const dismiss = (id: number): void => {
    timers.get(id)?.();
    timers.delete(id);
    shown.value = shown.value.filter((t) => t.id !== id);
  };
  return {
    shown,
    push(text, tone, options = {}) {
      const id = next++;
      const sticky = options.sticky === true;
      shown.value = [...shown.value, { id, tone, text, sticky, action: options.action ?? null }];
      if (options.keep ?? tone !== 'quiet') {
        recent.value = [{ id, tone, text, at: now() }, ...recent.value].slice(0, RECENT_KEPT);
        unread.value = Math.min(RECENT_KEPT, unread.value + 1);
      }
      if (!sticky)
        timers.set(
          id,
          setTimer(() => dismiss(id), TOAST_MS[tone]),
        );
      const same = shown.value.filter((t) => t.sticky === sticky);
      const extra = same.length - (sticky ? MAX_STICKY : MAX_SHOWN);
      for (const old of same.slice(0, Math.max(0, extra))) dismiss(old.id);
    },
    async act(id) {
      const toast = shown.value.find((t) => t.id === id);
      if (toast?.action == null) return;
      dismiss(id);
      await toast.action.run();
    },
    dismiss,
    recent,
    unread,
    markRead: () => void (unread.value = 0),
    dispose() {
      for (const cancel of timers.values()) cancel();
      timers.clear();
      shown.value = [];
    },
  };
}
