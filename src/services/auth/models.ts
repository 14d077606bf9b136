import type { Clock } from '../clock';
import type { AuthForm } from '../stores/auth';
import type { AccountTab, AuthModalMode, UiStore } from '../stores/ui';
import * as account from './account';
import { createAuthClient } from './client';
import * as flows from './flows';
import { AUTH_TEXT } from './messages';
import { endSession } from './session';
import { errorMessage } from '../api/errors';
import { ProvidersResponse } from '../../contracts/web3';
import * as wallet from './wallet';

export interface AuthModelDeps extends flows.AuthDeps {
  ui: UiStore;
  /** This browser's wallet (the injected one unless a test or the wallet kit gives another). */
  wallet?: () => wallet.WalletSigner | null;
  clock: Clock;
  navigate(path: string): void;
}

/** docs/product.md §9: the reset page goes to "/" 3 s after success. */
export const RESET_REDIRECT_MS = 3000;

/**
 * What the auth modal, the account modal, the header and the reset page dispatch. Each action shows its
 * result as the form's notice and marks the form busy while it runs.
 */
export function createAuthModels(deps: AuthModelDeps) {
  const { auth } = deps.stores;

  /** Runs a form's action once at a time, showing its outcome; answers whether it succeeded. */
  const run = async (form: AuthForm, action: () => Promise<flows.Outcome | flows.LoginOutcome>) => {
    if (auth.busy.peek().has(form)) return false;
    auth.setBusy(form, true);
    auth.setNotice(form, null);
    try {
      const outcome = await action();
      if (outcome.ok === false) auth.setNotice(form, { tone: 'error', text: outcome.message });
      else if (outcome.ok === true && outcome.message !== undefined) {
        auth.setNotice(form, { tone: 'success', text: outcome.message });
      }
      return outcome.ok !== false;
    } finally {
      auth.setBusy(form, false);
    }
  };

  const closeAuth = (): void => {
    deps.ui.closeAuthModal();
    auth.setPendingTwoFactor(null);
    auth.offerLoginCode(false);
    auth.setNotice('auth', null);
  };

  const signer = (): wallet.WalletSigner | null => (deps.wallet ?? wallet.injectedSigner)();

  const walletLogin = (rememberMe: boolean) =>
    run('auth', async () => {
      const outcome = await wallet.walletLogin(deps, signer(), rememberMe);
      if (outcome.ok === 'two-factor') deps.ui.openAuthModal('tfa-verify');
      else if (outcome.ok) closeAuth();
      return outcome;
    });

  let rememberKit = false;
  const kit = wallet.kitSignIn(deps, () => rememberKit);

  const loadProviders = async (): Promise<void> => {
    try {
      auth.setProviders(await deps.main.call(ProvidersResponse, '/auth/providers'));
    } catch {
      auth.setProviders({ google: false, twitter: false });
    }
  };

  const modal = {
    /**
     * docs/product.md §4: on open the modal tries a remember-me login first, then a wallet-signature login when a
     * wallet is already connected to this site.
     */
    async opened(): Promise<void> {
      void loadProviders();
      if (deps.stores.session.isLoggedIn.peek()) return;
      if (await flows.autoLogin(deps)) {
        closeAuth();
        return;
      }
      const connected = signer();
      if (connected !== null && (await connected.isConnected())) await walletLogin(false);
    },
    walletLogin,
    /** Opens the wallet kit (connect, then sign in): injected and WalletConnect wallets. */
    openWalletKit(rememberMe: boolean): void {
      rememberKit = rememberMe;
      auth.setNotice('auth', null);
      auth.setWalletKitOpen(true);
    },
    /** What the wallet kit's authentication adapter calls. */
    walletKit: {
      prepare: (address: string, chainId: number) => kit.prepare(address, chainId),
      async verify(message: string, signature: string): Promise<boolean> {
        const outcome = await kit.verify(message, signature);
        if (outcome.ok === 'two-factor') {
          auth.setWalletKitOpen(false);
          deps.ui.openAuthModal('tfa-verify');
        } else if (outcome.ok) {
          auth.setWalletKitOpen(false);
          closeAuth();
        } else auth.setNotice('auth', { tone: 'error', text: outcome.message });
        return outcome.ok !== false;
      },
      closed(): void {
        kit.cancel();
        auth.setWalletKitOpen(false);
      },
    },
    /** The browser goes to the provider (a link, not a call: docs/product.md §7). */
    socialLoginUrl: (provider: 'google' | 'twitter', rememberMe: boolean) =>
      `${deps.main.baseURL}/auth/${provider}/login${rememberMe ? '?remember_me=true' : ''}`,
    /** Back from a provider with two-factor on: the code step for that login. */
    resumeTwoFactor(userId: string): void {
      auth.setPendingTwoFactor({ userId });
      deps.ui.openAuthModal('tfa-verify');
    },
    switchTo(mode: AuthModalMode): void {
      auth.setNotice('auth', null);
      if (mode !== 'tfa-verify') auth.setPendingTwoFactor(null);
      deps.ui.openAuthModal(mode);
    },
    close: closeAuth,
    login: (fields: { username: string; password: string; rememberMe: boolean; code?: string }) =>
      run('auth', async () => {
        const outcome = await flows.passwordLogin(deps, fields);
        if (outcome.ok === 'two-factor') deps.ui.openAuthModal('tfa-verify');
        else if (outcome.ok) closeAuth();
        return outcome;
      }),
    verifyCode: (code: string) =>
      run('auth', async () => {
        const outcome = await flows.completeTwoFactor(deps, code);
        if (outcome.ok) closeAuth();
        return outcome;
      }),
    signup: (fields: { email: string; username: string; password: string }) =>
      run('auth', async () => {
        const outcome = await flows.signup(deps, fields);
        if (outcome.ok) deps.ui.openAuthModal('login');
        return outcome;
      }),
    forgot: (email: string) => run('auth', () => flows.forgotPassword(deps, email)),
  };

  const accountModel = {
    /** Opens the account modal on a tab and loads what it shows. */
    async show(tab: AccountTab): Promise<void> {
      deps.ui.openAccountModal(tab);
      // The Plan and Notifications tabs read what they show themselves when they are shown.
      if (tab === 'plan' || tab === 'notifications') return;
      if (tab === 'devices') await account.loadDevices(deps);
      else if (tab === 'wallets') await wallet.loadWallets(deps);
      else if (tab === 'activity') await account.loadActivity(deps);
      else await run('twoFactor', () => account.syncTwoFactor(deps));
    },
    close(): void {
      account.hideRecoveryCodes(deps);
      for (const form of ['devices', 'password', 'twoFactor', 'wallets'] as const) auth.setNotice(form, null);
      deps.ui.closeAccountModal();
    },
    linkWallet: () => run('wallets', () => wallet.linkWallet(deps, signer())),
    unlinkWallet: (id: string) => run('wallets', () => wallet.unlinkWallet(deps, id)),
    removeDevice: (id: string) => run('devices', () => account.removeDevice(deps, id)),
    revokeAllDevices: (unlinkWallets = false) =>
      run('devices', () => account.revokeAllDevices(deps, unlinkWallets)),
    changePassword: (fields: { current: string; next: string; confirm: string; unlinkWallets?: boolean }) =>
      run('password', () => flows.changePassword(deps, fields)),
    startTwoFactorSetup: () => run('twoFactor', () => account.startTwoFactorSetup(deps)),
    verifyTwoFactor: (code: string) => run('twoFactor', () => account.verifyTwoFactor(deps, code)),
    disableTwoFactor: (password: string) => run('twoFactor', () => account.disableTwoFactor(deps, password)),
    hideRecoveryCodes: () => account.hideRecoveryCodes(deps),
  };

  let stopRedirect: (() => void) | null = null;
  const resetPage = {
    /** docs/product.md §5 reset page: a token, then matching passwords; success goes to "/" after 3 s. */
    submit: (token: string | null, password: string, confirm: string) =>
      run('reset', async () => {
        if (token === null || token === '') return { ok: false, message: AUTH_TEXT.resetTokenMissing };
        if (password !== confirm) return { ok: false, message: AUTH_TEXT.resetPasswordsDiffer };
        try {
          const { message } = await createAuthClient(deps.main).resetPassword(token, password);
          stopRedirect?.();
          stopRedirect = deps.clock.setTimer(() => deps.navigate('/'), RESET_REDIRECT_MS);
          return { ok: true, message };
        } catch (error) {
          return { ok: false, message: errorMessage(error, AUTH_TEXT.resetFailed) };
        }
      }),
    /** Cancels a pending redirect (the page is leaving). */
    dispose(): void {
      stopRedirect?.();
      stopRedirect = null;
      auth.setNotice('reset', null);
    },
  };

  return {
    modal,
    account: accountModel,
    resetPage,
    /** docs/product.md §4: logout clears the token and goes to "/". */
    async logout(): Promise<void> {
      deps.ui.closeAccountModal();
      await endSession(deps.main, deps.stores);
      deps.navigate('/');
    },
  };
}

export type AuthModels = ReturnType<typeof createAuthModels>;
