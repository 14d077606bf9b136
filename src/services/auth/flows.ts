import { PASSWORD_MIN, type DeviceInfo } from '../../contracts/auth';
import type { ApiClient } from '../api/client';
import { errorMessage, statusOf } from '../api/errors';
import type { Stores } from '../stores';
import { createAuthClient } from './client';
import { AUTH_TEXT, isCodeShaped } from './messages';
import { beginSession } from './session';

/** What the auth flows need: the main API client, the stores, and what this browser says it is. */
export interface AuthDeps {
  main: ApiClient;
  stores: Pick<Stores, 'session' | 'auth'>;
  deviceInfo?: DeviceInfo;
}

export type Outcome = { ok: true; message?: string } | { ok: false; message: string };
export type LoginOutcome = Outcome | { ok: 'two-factor'; userId: string };

const failed = (message: string): Outcome => ({ ok: false, message });

/**
 * The password step of a login. On 2FA the pending user is kept for {@link completeTwoFactor}. A wait
 * (429) offers the 2FA code field: an account with 2FA on signs in at once with the password and a code.
 */
export async function passwordLogin(
  deps: AuthDeps,
  fields: { username: string; password: string; rememberMe: boolean; code?: string },
): Promise<LoginOutcome> {
  const client = createAuthClient(deps.main);
  const code = fields.code?.trim() ?? '';
  if (code !== '' && !isCodeShaped(code, true)) return failed(AUTH_TEXT.codeInvalid);
  try {
    const answer = await client.login({
      username: fields.username,
      password: fields.password,
      rememberMe: fields.rememberMe,
      ...(code === '' ? {} : { code }),
      ...(deps.deviceInfo === undefined ? {} : { deviceInfo: deps.deviceInfo }),
    });
    if ('two_factor_required' in answer) {
      deps.stores.auth.setPendingTwoFactor({ userId: answer.user_id });
      return { ok: 'two-factor', userId: answer.user_id };
    }
    return (await beginSession(deps.main, deps.stores.session, answer.access_token))
      ? { ok: true }
      : failed(AUTH_TEXT.loadUserFailed);
  } catch (error) {
    if (statusOf(error) === 429) deps.stores.auth.offerLoginCode(true);
    return failed(errorMessage(error, AUTH_TEXT.loginFailed));
  }
}

/** The 2FA step: a 6-digit code (or a recovery code) for the pending login. */
export async function completeTwoFactor(deps: AuthDeps, code: string): Promise<Outcome> {
  const pending = deps.stores.auth.pendingTwoFactor.peek();
  if (!isCodeShaped(code, true)) return failed(AUTH_TEXT.codeInvalid);
  if (pending === null) return failed(AUTH_TEXT.invalidTwoFactor);
  try {
    const answer = await createAuthClient(deps.main).loginTwoFactor(pending.userId, code.trim());
    deps.stores.auth.setPendingTwoFactor(null);
    return (await beginSession(deps.main, deps.stores.session, answer.access_token))
      ? { ok: true }
      : failed(AUTH_TEXT.loadUserFailed);
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.invalidTwoFactor));
  }
}

/** Remember-me: a session from this browser's device token, or false when it has none. */
export async function autoLogin(deps: AuthDeps): Promise<boolean> {
  try {
    const token = await createAuthClient(deps.main).autoLogin();
    return token !== null && (await beginSession(deps.main, deps.stores.session, token));
  } catch {
    return false;
  }
}

export async function signup(
  deps: AuthDeps,
  fields: { email: string; username: string; password: string },
): Promise<Outcome> {
  const email = fields.email.trim();
  const username = fields.username.trim();
  if (email === '' || username === '' || fields.password === '')
    return failed(AUTH_TEXT.signupFieldsRequired);
  try {
    await createAuthClient(deps.main).signup({ email, username, password: fields.password });
    return { ok: true, message: AUTH_TEXT.signupSucceeded };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.signupFailed));
  }
}

export async function forgotPassword(deps: AuthDeps, email: string): Promise<Outcome> {
  try {
    return { ok: true, message: (await createAuthClient(deps.main).forgotPassword(email.trim())).message };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.genericError));
  }
}

/**
 * docs/product.md §5 change-password form: confirmation first, then at least 8 characters. With
 * `unlinkWallets`, the change also unlinks every wallet and linked sign-in and signs them out.
 */
export async function changePassword(
  deps: AuthDeps,
  fields: { current: string; next: string; confirm: string; unlinkWallets?: boolean },
): Promise<Outcome> {
  if (fields.next !== fields.confirm) return failed(AUTH_TEXT.newPasswordsDiffer);
  if (fields.next.length < PASSWORD_MIN) return failed(AUTH_TEXT.passwordTooShort);
  try {
    return {
      ok: true,
      message: (
        await createAuthClient(deps.main).changePassword(
          fields.current,
          fields.next,
          fields.unlinkWallets === true,
        )
      ).message,
    };
  } catch (error) {
    return failed(errorMessage(error, AUTH_TEXT.changePasswordFailed));
  }
}
