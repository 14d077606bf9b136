import { ActivityList } from '../../contracts/activity';
import {
  AccessTokenResponse,
  DeviceList,
  LoginResponse,
  Me,
  MessageResponse,
  SignupResponse,
  TwoFactorEnabledResponse,
  TwoFactorSetupResponse,
  type DeviceInfo,
  type SignupRequest,
} from '../../contracts/auth';
import type { ApiClient } from '../api/client';

export interface LoginFields {
  username: string;
  password: string;
  rememberMe: boolean;
  deviceInfo?: DeviceInfo;
  /** A 2FA code sent with the password (offered while the account must wait). */
  code?: string;
}

/** One typed call per `/auth/*` and `/users/me` route (docs/product.md §7), checked against the contracts. */
export function createAuthClient(main: ApiClient) {
  const post = { method: 'POST' } as const;
  return {
    /** The login form, sent as application/x-www-form-urlencoded. */
    login(fields: LoginFields) {
      const form = new URLSearchParams({
        username: fields.username,
        password: fields.password,
        remember_me: String(fields.rememberMe),
      });
      if (fields.deviceInfo !== undefined) form.set('device_info', JSON.stringify(fields.deviceInfo));
      if (fields.code !== undefined) form.set('code', fields.code);
      return main.call(LoginResponse, '/auth/token', { ...post, body: form });
    },
    loginTwoFactor: (userId: string, code: string) =>
      main.call(AccessTokenResponse, '/auth/2fa/login', { ...post, body: { user_id: userId, code } }),
    signup: (body: SignupRequest) =>
      main.call(SignupResponse, '/auth/signup', { ...post, body: { ...body } }),
    /** The access token from a remembered device, or null when this browser is not remembered. */
    async autoLogin(): Promise<string | null> {
      const parsed = AccessTokenResponse.safeParse(await main.send('/auth/auto-login', post));
      return parsed.success ? parsed.data.access_token : null;
    },
    logout: () => main.send('/auth/logout', post),
    me: () => main.call(Me, '/users/me'),
    devices: () => main.call(DeviceList, '/auth/devices'),
    activity: () => main.call(ActivityList, '/account/activity'),
    removeDevice: (id: string) =>
      main.call(MessageResponse, `/auth/devices/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    /** With `unlinkWallets`, also unlinks every wallet and linked sign-in (asks "Confirm it's you"). */
    revokeAllDevices: (unlinkWallets = false) =>
      main.call(
        MessageResponse,
        '/auth/devices/revoke-all',
        unlinkWallets ? { ...post, body: { unlink_wallets: true } } : post,
      ),
    changePassword: (current: string, next: string, unlinkWallets = false) =>
      main.call(MessageResponse, '/auth/change-password', {
        ...post,
        body: {
          current_password: current,
          new_password: next,
          ...(unlinkWallets ? { unlink_wallets: true } : {}),
        },
      }),
    forgotPassword: (email: string) =>
      main.call(MessageResponse, '/auth/forgot-password', { ...post, body: { email } }),
    resetPassword: (token: string, newPassword: string) =>
      main.call(MessageResponse, '/auth/reset-password', { ...post, body: { token, newPassword } }),
    setupTwoFactor: () => main.call(TwoFactorSetupResponse, '/auth/2fa/setup', post),
    /** The setup's QR code as a `data:image/png;base64,…` URL. */
    async qrCode(): Promise<string> {
      const blob = await main.send('/auth/2fa/qr-code', { responseType: 'blob' });
      if (!(blob instanceof Blob)) throw new Error('The QR code is not an image.');
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let binary = '';
      for (const byte of bytes) binary += String.fromCharCode(byte);
      return `data:image/png;base64,${btoa(binary)}`;
    },
    verifyTwoFactor: (code: string) =>
      main.call(TwoFactorEnabledResponse, '/auth/2fa/verify', { ...post, body: { code } }),
    disableTwoFactor: (password: string) =>
      main.call(MessageResponse, '/auth/2fa/disable', { ...post, body: { password } }),
  };
}

export type AuthClient = ReturnType<typeof createAuthClient>;
