import { signal, type ReadonlySignal } from '@preact/signals-core';
import { KEY_TEXTS, type ExchangeKey, type KeyEnvironment } from '../../contracts/exchanges';
import { VENUES, VENUE_KEY_FORMS, VENUE_LABELS, type VenueName } from '../../contracts/venues';
import type { ApiClient } from '../api/client';
import type { SessionStore } from '../stores/session';
import type { Dialogs } from '../trading/dialogs';
import { addKey, keyInputProblem, listKeys, removeKey } from './keys';

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
  /** The venue the key was made on: its form asks for what that venue needs. */
  exchangeName: VenueName;
  apiKey: string;
  secretKey: string;
  /** OKX only; ignored (and cleared by the form) on the other venues. */
  passphrase: string;
  environment: KeyEnvironment;
}

export const EMPTY_DRAFT: KeyDraft = {
  exchangeName: 'binance',
  apiKey: '',
  secretKey: '',
  passphrase: '',
  // A new key is a demo key unless the user picks Live: nothing trades real funds by default.
  environment: 'demo',
};

/** What the form shows for one venue: its name, whether it asks for a passphrase, where and how to make the key. */
export interface KeyFormView {
  venue: VenueName;
  label: string;
  passphrase: boolean;
  where: string;
  checklist: readonly string[];
  /** The Environment select's demo option. */
  demoLabel: string;
  /** The Environment select's live option. */
  liveLabel: string;
  /** Shown under the select while Live is picked: in plain words, real funds trade. */
  liveWarning: string;
}

export const keyFormView = (venue: VenueName): KeyFormView => ({
  venue,
  label: VENUE_LABELS[venue],
  ...VENUE_KEY_FORMS[venue],
  demoLabel: `Demo (${VENUE_LABELS[venue]} demo trading)`,
  liveLabel: 'Live (real funds)',
  liveWarning: KEY_TEXTS.liveWarning(venue),
});

/** The Exchange select's options, in the contract's order. */
export const KEY_VENUES: readonly KeyFormView[] = VENUES.map(keyFormView);

/** The draft on another venue: a passphrase typed for OKX is not kept for a venue that has none. */
export const onVenue = (draft: KeyDraft, venue: VenueName): KeyDraft => ({
  ...draft,
  exchangeName: venue,
  passphrase: VENUE_KEY_FORMS[venue].passphrase ? draft.passphrase : '',
});

/** The texts a form problem shows: they go away once the draft no longer has that problem. */
const formProblem = (text: string): boolean =>
  text === KEY_TEXTS.empty ||
  text === KEY_TEXTS.passphraseMissing ||
  VENUES.some((v) => text === KEY_TEXTS.passphraseUnused(v));

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
  /**
   * Saves the draft; resolves true when the key was saved (the form may then be cleared). While a save
   * or a delete is under way it sends nothing and resolves false.
   */
  save(draft: KeyDraft, confirmWithdrawals?: boolean): Promise<boolean>;
  /** Gives up on saving the key that can withdraw. */
  cancelWithdrawals(): void;
  /**
   * The form was edited: "cannot be empty" goes away once both fields are filled, the passphrase's
   * message once it is typed (or the venue needs none).
   */
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
      // One save at a time: a second click or Enter while the first is on its way sends nothing.
      if (busy.peek()) return false;
      if (!loggedIn()) {
        notice.value = { tone: 'error', text: KEY_TEXTS.loggedOut };
        return false;
      }
      const problem = keyInputProblem(draft);
      if (problem !== null) {
        notice.value = { tone: 'error', text: problem };
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
            ? { tone: 'info', text: `${KEY_TEXTS.saved} ${KEY_TEXTS.unverified(saved.value.exchangeName)}` }
            : { tone: 'success', text: KEY_TEXTS.saved };
        await reload();
        return true;
      } finally {
        busy.value = false;
      }
    },
    edited(draft) {
      const shown = notice.peek();
      if (shown === null || shown.tone !== 'error' || !formProblem(shown.text)) return;
      if (keyInputProblem(draft) !== shown.text) notice.value = null;
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
                `${key.environment.toUpperCase()} ${VENUE_LABELS[key.exchangeName]} key ${key.keyHint}`,
                `Orders sent to it will go to the paper exchange; it stays valid at ${VENUE_LABELS[key.exchangeName]} until you revoke it there.`,
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
