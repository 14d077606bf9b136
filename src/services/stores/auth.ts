import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { ActivityEntry } from '../../contracts/activity';
import type { Device } from '../../contracts/auth';
import type { Wallet } from '../../contracts/web3';

/** A message under a form: an error in red or a success in green. */
export interface Notice {
  tone: 'error' | 'success';
  text: string;
}

/** A password login waiting for its 2FA code (docs/product.md §4: LOGIN → TFA_VERIFY). */
export interface PendingTwoFactor {
  userId: string;
}

export type DevicesState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; items: readonly Device[] }
  | { status: 'error'; message: string };

export type ActivityState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; items: readonly ActivityEntry[] }
  | { status: 'error'; message: string };

/** docs/product.md §4 2FA states: disabled, setup (QR and secret), verify, enabled. */
export type TwoFactorState =
  | { step: 'disabled' }
  | { step: 'setup'; secret: string; otpauthUrl: string; qr: string | null }
  | { step: 'enabled'; recoveryCodes: readonly string[] | null };

export type WalletsState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; items: readonly Wallet[] }
  | { status: 'error'; message: string };

/** docs/product.md §4 wallet sign-in: idle, signing, verifying; back to idle on error. */
export type WalletSignIn = 'idle' | 'signing' | 'verifying';

export type AuthForm = 'auth' | 'devices' | 'password' | 'twoFactor' | 'reset' | 'wallets';

/** What the auth and account modals and the reset page show; written by the auth services only. */
export interface AuthStore {
  /** One notice per form. */
  readonly notices: ReadonlySignal<Readonly<Partial<Record<AuthForm, Notice>>>>;
  /** Forms with a request in flight (their inputs are disabled). */
  readonly busy: ReadonlySignal<ReadonlySet<AuthForm>>;
  readonly pendingTwoFactor: ReadonlySignal<PendingTwoFactor | null>;
  /**
   * The login was answered with a wait (429): the form offers the 2FA code field, since an account with
   * 2FA on signs in at once with its password and a fresh code.
   */
  readonly loginCodeOffered: ReadonlySignal<boolean>;
  readonly devices: ReadonlySignal<DevicesState>;
  /** The account's activity log (sign-ins, security changes), newest first. */
  readonly activity: ReadonlySignal<ActivityState>;
  readonly twoFactor: ReadonlySignal<TwoFactorState>;
  readonly wallets: ReadonlySignal<WalletsState>;
  readonly walletSignIn: ReadonlySignal<WalletSignIn>;
  /** The social sign-ins the server offers (their buttons are hidden otherwise). */
  readonly providers: ReadonlySignal<{ google: boolean; twitter: boolean }>;
  /** The wallet kit (loaded on first use) is showing its connect and sign-in windows. */
  readonly walletKitOpen: ReadonlySignal<boolean>;
  setWalletKitOpen(open: boolean): void;
  setProviders(next: { google: boolean; twitter: boolean }): void;
  setWallets(state: WalletsState): void;
  setWalletSignIn(state: WalletSignIn): void;
  setNotice(form: AuthForm, notice: Notice | null): void;
  setBusy(form: AuthForm, busy: boolean): void;
  setPendingTwoFactor(pending: PendingTwoFactor | null): void;
  offerLoginCode(offered: boolean): void;
  setDevices(state: DevicesState): void;
  setActivity(state: ActivityState): void;
  setTwoFactor(state: TwoFactorState): void;
  /** Forgets everything a signed-in user saw (on logout). */
  reset(): void;
}

export function createAuthStore(): AuthStore {
  const notices = signal<Partial<Record<AuthForm, Notice>>>({}, { name: 'auth.notices' });
  const busy = signal<ReadonlySet<AuthForm>>(new Set(), { name: 'auth.busy' });
  const pendingTwoFactor = signal<PendingTwoFactor | null>(null, { name: 'auth.pendingTwoFactor' });
  const loginCodeOffered = signal(false, { name: 'auth.loginCodeOffered' });
  const devices = signal<DevicesState>({ status: 'idle' }, { name: 'auth.devices' });
  const activity = signal<ActivityState>({ status: 'idle' }, { name: 'auth.activity' });
  const twoFactor = signal<TwoFactorState>({ step: 'disabled' }, { name: 'auth.twoFactor' });
  const wallets = signal<WalletsState>({ status: 'idle' }, { name: 'auth.wallets' });
  const walletSignIn = signal<WalletSignIn>('idle', { name: 'auth.walletSignIn' });
  const providers = signal({ google: false, twitter: false }, { name: 'auth.providers' });
  const walletKitOpen = signal(false, { name: 'auth.walletKitOpen' });
  return {
    walletKitOpen,
    setWalletKitOpen(open) {
      walletKitOpen.value = open;
    },
    providers,
    setProviders(next) {
      providers.value = next;
    },
    wallets,
    walletSignIn,
    setWallets(next) {
      wallets.value = next;
    },
    setWalletSignIn(next) {
      walletSignIn.value = next;
    },
    notices,
    busy,
    pendingTwoFactor,
    devices,
    activity,
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
    loginCodeOffered,
    offerLoginCode(offered) {
      loginCodeOffered.value = offered;
    },
    setDevices(next) {
      devices.value = next;
    },
    setActivity(next) {
      activity.value = next;
    },
    setTwoFactor(next) {
      twoFactor.value = next;
    },
    reset() {
      notices.value = {};
      busy.value = new Set();
      pendingTwoFactor.value = null;
      loginCodeOffered.value = false;
      devices.value = { status: 'idle' };
      activity.value = { status: 'idle' };
      twoFactor.value = { step: 'disabled' };
      wallets.value = { status: 'idle' };
      walletSignIn.value = 'idle';
      walletKitOpen.value = false;
    },
  };
}
