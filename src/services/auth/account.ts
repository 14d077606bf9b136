import { errorMessage } from '../api/errors';
import { createAuthClient } from './client';
import type { AuthDeps, Outcome } from './flows';
import { AUTH_TEXT, isCodeShaped } from './messages';
import { loadUser } from './session';

const failed = (message: string): Outcome => ({ ok: false, message });

/** Loads the remembered devices into the store. */
export async function loadDevices(deps: AuthDeps): Promise<Outcome> {
  const { auth } = deps.stores;
  auth.setDevices({ status: 'loading' });
  try {
    const items = await createAuthClient(deps.main).devices();
    auth.setDevices({ status: 'ready', items });
    return { ok: true };
  } catch {
    auth.setDevices({ status: 'error', message: AUTH_TEXT.loadDevicesFailed });
    return failed(AUTH_TEXT.loadDevicesFailed);
  }
}

/** Loads the account's activity log into the store. */
export async function loadActivity(deps: AuthDeps): Promise<Outcome> {
  const { auth } = deps.stores;
  auth.setActivity({ status: 'loading' });
  try {
    auth.setActivity({ status: 'ready', items: await createAuthClient(deps.main).activity() });
    return { ok: true };
  } catch {
    auth.setActivity({ status: 'error', message: AUTH_TEXT.loadActivityFailed });
    return failed(AUTH_TEXT.loadActivityFailed);
  }
}

export async function removeDevice(deps: AuthDeps, id: string): Promise<Outcome> {
  try {
    const { message } = await createAuthClient(deps.main).removeDevice(id);
    await loadDevices(deps);
    return { ok: true, message };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.removeDeviceFailed));
  }
}

/** Forgets every other device; with `unlinkWallets`, also unlinks every wallet and signs them out. */
export async function revokeAllDevices(deps: AuthDeps, unlinkWallets = false): Promise<Outcome> {
  try {
    const { message } = await createAuthClient(deps.main).revokeAllDevices(unlinkWallets);
    await loadDevices(deps);
    return { ok: true, message };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.revokeAllFailed));
  }
}

/** Reloads the user and puts the 2FA state in step with it (an unfinished setup is kept). */
export async function syncTwoFactor(deps: AuthDeps): Promise<Outcome> {
  if (!(await loadUser(deps.main, deps.stores.session))) return failed(AUTH_TEXT.loadUserFailed);
  const enabled = deps.stores.session.user.peek()?.isTwoFactorEnabled === true;
  const current = deps.stores.auth.twoFactor.peek();
  if (enabled && current.step !== 'enabled')
    deps.stores.auth.setTwoFactor({ step: 'enabled', recoveryCodes: null });
  if (!enabled && current.step === 'enabled') deps.stores.auth.setTwoFactor({ step: 'disabled' });
  return { ok: true };
}

/** docs/product.md §4 2FA: disabled → setup. Shows the secret at once, the QR code once it has loaded. */
export async function startTwoFactorSetup(
  deps: AuthDeps,
): Promise<Outcome & { secret?: string; uri?: string }> {
  const client = createAuthClient(deps.main);
  const { auth } = deps.stores;
  try {
    const setup = await client.setupTwoFactor();
    auth.setTwoFactor({ step: 'setup', secret: setup.secret, otpauthUrl: setup.otpauth_url, qr: null });
    try {
      const qr = await client.qrCode();
      const now = auth.twoFactor.peek();
      if (now.step === 'setup' && now.secret === setup.secret) auth.setTwoFactor({ ...now, qr });
    } catch {
      // The secret alone is enough to add the account by hand.
    }
    return { ok: true, secret: setup.secret, uri: setup.otpauth_url };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.setupFailed));
  }
}

/** docs/product.md §4 2FA: verify → enabled. The recovery codes are kept in memory only, to be shown once. */
export async function verifyTwoFactor(
  deps: AuthDeps,
  code: string,
): Promise<Outcome & { recoveryCodes?: string[] }> {
  if (!isCodeShaped(code)) return failed(AUTH_TEXT.codeInvalid);
  try {
    const answer = await createAuthClient(deps.main).verifyTwoFactor(code.trim());
    deps.stores.auth.setTwoFactor({ step: 'enabled', recoveryCodes: answer.recovery_codes });
    await loadUser(deps.main, deps.stores.session);
    return { ok: true, message: answer.message, recoveryCodes: answer.recovery_codes };
  } catch {
    return failed(AUTH_TEXT.verifyFailed);
  }
}

/** docs/product.md §4 2FA: enabled → disabled, with the password. */
export async function disableTwoFactor(deps: AuthDeps, password: string): Promise<Outcome> {
  if (password === '') return failed(AUTH_TEXT.disableNeedsPassword);
  try {
    const { message } = await createAuthClient(deps.main).disableTwoFactor(password);
    deps.stores.auth.setTwoFactor({ step: 'disabled' });
    await loadUser(deps.main, deps.stores.session);
    return { ok: true, message };
  } catch {
    return failed(AUTH_TEXT.disableFailed);
  }
}

/** Forgets the recovery codes once the person has seen them. */
export function hideRecoveryCodes(deps: AuthDeps): void {
  const now = deps.stores.auth.twoFactor.peek();
  if (now.step === 'enabled') deps.stores.auth.setTwoFactor({ step: 'enabled', recoveryCodes: null });
}
