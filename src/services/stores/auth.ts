import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { Device } from '../../contracts/auth';

/** A message under a form: an error in red or a success in green. */
export interface Notice {
  tone: 'error' | 'success';
  text: string;
}

/** A password login waiting for its 2FA code (spec §4: LOGIN → TFA_VERIFY). */
export interface PendingTwoFactor {
  userId: string;
}

export type DevicesState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; items: readonly Device[] }
  | { status: 'error'; message: string };

/** Spec §4 2FA states: disabled, setup (QR and secret), verify, enabled. */
export type TwoFactorState =
  | { step: 'disabled' }
  | { step: 'setup'; secret: string; otpauthUrl: string; qr: string | null }
  | { step: 'enabled'; recoveryCodes: readonly string[] | null };

export type AuthForm = 'auth' | 'devices' | 'password' | 'twoFactor' | 'reset';

/** What the auth and account modals and the reset page show; written by the auth services only. */
export interface AuthStore {
  /** One notice per form. */
  readonly notices: ReadonlySignal<Readonly<Partial<Record<AuthForm, Notice>>>>;
  /** Forms with a request in flight (their inputs are disabled). */
  readonly busy: ReadonlySignal<ReadonlySet<AuthForm>>;
  readonly pendingTwoFactor: ReadonlySignal<PendingTwoFactor | null>;
  readonly devices: ReadonlySignal<DevicesState>;
  readonly twoFactor: ReadonlySignal<TwoFactorState>;
  setNotice(form: AuthForm, notice: Notice | null): void;
  setBusy(form: AuthForm, busy: boolean): void;
  setPendingTwoFactor(pending: PendingTwoFactor | null): void;
  setDevices(state: DevicesState): void;
  setTwoFactor(state: TwoFactorState): void;
  /** Forgets everything a signed-in user saw (on logout). */
  reset(): void;
}

export function createAuthStore(): AuthStore {
  const notices = signal<Partial<Record<AuthForm, Notice>>>({}, { name: 'auth.notices' });
  const busy = signal<ReadonlySet<AuthForm>>(new Set(), { name: 'auth.busy' });
  const pendingTwoFactor = signal<PendingTwoFactor | null>(null, { name: 'auth.pendingTwoFactor' });
  const devices = signal<DevicesState>({ status: 'idle' }, { name: 'auth.devices' });
  const twoFactor = signal<TwoFactorState>({ step: 'disabled' }, { name: 'auth.twoFactor' });
  return {
    notices,
    busy,
    pendingTwoFactor,
    devices,
    twoFactor,
    setNotice(form, notice) {
      const next = { ...notices.peek() };
      if (notice === null) delete next[form];
      else next[form] = notice;
      notices.value = next;
    },
    setBusy(form, on) {
      const next = new Set(busy.peek());
      if (on) next.add(form);
      else next.delete(form);
      busy.value = next;
    },
    setPendingTwoFactor(next) {
      pendingTwoFactor.value = next;
    },
    setDevices(next) {
      devices.value = next;
    },
    setTwoFactor(next) {
      twoFactor.value = next;
    },
    reset() {
      notices.value = {};
      busy.value = new Set();
      pendingTwoFactor.value = null;
      devices.value = { status: 'idle' };
      twoFactor.value = { step: 'disabled' };
    },
  };
}
