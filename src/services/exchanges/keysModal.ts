import { signal, type ReadonlySignal } from '@preact/signals-core';
import { KEY_TEXTS, type ExchangeKey, type KeyEnvironment } from '../../contracts/exchanges';
import type { ApiClient } from '../api/client';
import type { SessionStore } from '../stores/session';
import type { Dialogs } from '../trading/dialogs';
import { addKey, listKeys, removeKey } from './keys';

export type KeysList =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ready'; items: readonly ExchangeKey[] };

export interface KeysNotice {
  tone: 'error' | 'success' | 'info';
  text: string;
}

export interface KeyDraft {
  apiKey: string;
  secretKey: string;
  environment: KeyEnvironment;
}

/**
 * The API Settings modal (docs/product.md §2, §5, §8): the saved keys, the Save Key form and Delete per key. A key
 * that can withdraw is refused by the server (409) until the user confirms in the modal.
 */
export interface KeysModalModel {
  readonly open: ReadonlySignal<boolean>;
  readonly list: ReadonlySignal<KeysList>;
  readonly notice: ReadonlySignal<KeysNotice | null>;
  readonly busy: ReadonlySignal<boolean>;
  /** Set while a key that can withdraw waits for the user's confirmation. */
  readonly withdrawalsPending: ReadonlySignal<KeyDraft | null>;
  show(): void;
  hide(): void;
  reload(): Promise<void>;
  /** Saves the draft; resolves true when the key was saved (the form may then be cleared). */
  save(draft: KeyDraft, confirmWithdrawals?: boolean): Promise<boolean>;
  /** Gives up on saving the key that can withdraw. */
  cancelWithdrawals(): void;
  /** The form was edited: "cannot be empty" goes away once both fields are filled. */
  edited(draft: KeyDraft): void;
  remove(id: string): Promise<void>;
}

export function createKeysModal(deps: {
  main: ApiClient;
  session: SessionStore;
  dialogs: Dialogs;
  /** Called after a key was deleted: it may have been the account orders go to. */
  onDeleted?: () => void;
}): KeysModalModel {
  const open = signal(false, { name: 'keys.open' });
  const list = signal<KeysList>({ status: 'idle' }, { name: 'keys.list' });
  const notice = signal<KeysNotice | null>(null, { name: 'keys.notice' });
  const busy = signal(false, { name: 'keys.busy' });
  const withdrawalsPending = signal<KeyDraft | null>(null, { name: 'keys.withdrawalsPending' });
  const loggedIn = () => deps.session.isLoggedIn.peek();

  const reload = async (): Promise<void> => {
    if (!loggedIn()) {
      list.value = { status: 'error', message: KEY_TEXTS.loggedOut };
      return;
    }
    if (list.peek().status !== 'ready') list.value = { status: 'loading' };
    const listed = await listKeys(deps.main);
    list.value = listed.ok
      ? { status: 'ready', items: listed.value }
      : { status: 'error', message: listed.message };
  };

  return {
    open,
    list,
    notice,
    busy,
    withdrawalsPending,
    show() {
      notice.value = null;
      withdrawalsPending.value = null;
      list.value = { status: 'idle' };
      open.value = true;
      void reload();
    },
    hide() {
      open.value = false;
      withdrawalsPending.value = null;
    },
    reload,
    async save(draft, confirmWithdrawals = false) {
      if (!loggedIn()) {
        notice.value = { tone: 'error', text: KEY_TEXTS.loggedOut };
        return false;
      }
      if (draft.apiKey.trim() === '' || draft.secretKey.trim() === '') {
        notice.value = { tone: 'error', text: KEY_TEXTS.empty };
        return false;
      }
      busy.value = true;
      withdrawalsPending.value = null;
      try {
        const saved = await addKey(deps.main, { ...draft, confirmWithdrawals });
        if (!saved.ok) {
          if (saved.status === 409 && !confirmWithdrawals) withdrawalsPending.value = draft;
          notice.value = { tone: 'error', text: saved.message };
          return false;
        }
        notice.value =
          saved.value.status === 'unverified'
            ? { tone: 'info', text: `${KEY_TEXTS.saved} ${KEY_TEXTS.unverified}` }
            : { tone: 'success', text: KEY_TEXTS.saved };
        await reload();
        return true;
      } finally {
        busy.value = false;
      }
    },
    edited(draft) {
      const filled = draft.apiKey.trim() !== '' && draft.secretKey.trim() !== '';
      if (filled && notice.peek()?.text === KEY_TEXTS.empty) notice.value = null;
    },
    cancelWithdrawals() {
      withdrawalsPending.value = null;
      notice.value = null;
    },
    async remove(id) {
      const current = list.peek();
      const key = current.status === 'ready' ? current.items.find((k) => k.id === id) : undefined;
      const asked = deps.dialogs.confirm(KEY_TEXTS.confirmDelete, {
        title: 'Delete API key',
        details:
          key === undefined
            ? []
            : [
                `${key.environment.toUpperCase()} Binance key ${key.keyHint}`,
                'Orders sent to it will go to the paper exchange; it stays valid at Binance until you revoke it there.',
              ],
        confirmLabel: 'Delete key',
      });
      if (!(await asked)) return;
      busy.value = true;
      try {
        const removed = await removeKey(deps.main, id);
        notice.value = removed.ok
          ? { tone: 'success', text: KEY_TEXTS.deleted }
          : { tone: 'error', text: removed.message };
        if (removed.ok) {
          deps.onDeleted?.();
          await reload();
        }
      } finally {
        busy.value = false;
      }
    },
  };
}
