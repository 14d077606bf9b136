import { z } from 'zod';

/**
 * Accounts and sessions (docs/product.md §3, §7): every request and response of `/auth/*` and `/users/me`, shared by
 * the server routes and the browser client.
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_TOO_SHORT = 'Password must be at least 8 characters long.';

const password = z.string().min(PASSWORD_MIN, { error: PASSWORD_TOO_SHORT }).max(256);
/** Present but not checked for length: a login or a current password is compared, not chosen. */
const anyPassword = z.string().min(1, { error: 'Password is required.' }).max(256);

export const Role = z.enum(['user', 'admin']);
export type Role = z.infer<typeof Role>;

export const SignupRequest = z.object({
  email: z.email({ error: 'Enter a valid email address.' }).max(254),
  username: z
    .string()
    .trim()
    .min(3, { error: 'Username must be 3 to 32 characters.' })
    .max(32, { error: 'Username must be 3 to 32 characters.' })
    .regex(/^[A-Za-z0-9_.-]+$/, { error: 'Username may use letters, digits, "_", "." and "-".' }),
  password,
});
export type SignupRequest = z.infer<typeof SignupRequest>;

/** The account as the owner sees it (`GET /users/me`, docs/product.md §3 User). */
export const Me = z.object({
  id: z.string(),
  /** Null for an account made by a wallet, or by a social sign-in that gave no verified e-mail. */
  email: z.string().nullable(),
  username: z.string(),
  role: Role,
  subscription: z.object({ status: z.string() }),
  is_two_factor_enabled: z.boolean(),
});
export type Me = z.infer<typeof Me>;

export const SignupResponse = Me.pick({ id: true, username: true, role: true }).extend({ email: z.string() });

/** docs/product.md §3 Remembered device: device_info {browser, os}, and the approximate place its time zone names. */
export const DeviceInfo = z.object({
  browser: z.string().trim().min(1).max(64),
  os: z.string().trim().min(1).max(64),
  place: z.string().trim().min(1).max(64).optional(),
});
export type DeviceInfo = z.infer<typeof DeviceInfo>;

const formBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', 'on', '1', '0', ''])])
  .transform((v) => v === true || v === 'true' || v === 'on' || v === '1');

/** A TOTP code (6 digits) or a one-time recovery code (`XXXXX-XXXXX`). */
export const TOTP_CODE = /^\d{6}$/;
export const RECOVERY_CODE = /^[A-Z2-7]{5}-[A-Z2-7]{5}$/;
export const TWO_FACTOR_CODE_INVALID = 'Please enter a valid 6-digit code.';
const code = z
  .string()
  .trim()
  .toUpperCase()
  .refine((c) => TOTP_CODE.test(c) || RECOVERY_CODE.test(c), { error: TWO_FACTOR_CODE_INVALID });

/** `POST /auth/token`, sent as a form: device_info is JSON text. */
export const LoginForm = z.object({
  username: z.string().trim().min(1, { error: 'Username is required.' }).max(254),
  password: anyPassword,
  remember_me: formBoolean.optional().default(false),
  device_info: z.string().max(1024).optional(),
  /**
   * A 2FA code (or recovery code) sent with the password: an account with 2FA on then signs in at once,
   * without the code step, even while failed logins make it wait. Ignored for accounts without 2FA.
   */
  code: code.optional(),
});
export type LoginForm = z.input<typeof LoginForm>;

export const AccessTokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('bearer'),
});
export type AccessTokenResponse = z.infer<typeof AccessTokenResponse>;

/** `POST /ws/ticket`: a single-use, 30-second ticket that opens one socket (`?ticket=`). */
export const SocketTicketResponse = z.object({ ticket: z.string().min(1) });
export type SocketTicketResponse = z.infer<typeof SocketTicketResponse>;

export const TwoFactorRequired = z.object({
  two_factor_required: z.literal(true),
  user_id: z.string(),
});

export const LoginResponse = z.union([AccessTokenResponse, TwoFactorRequired]);
export type LoginResponse = z.infer<typeof LoginResponse>;

/** `user_id` carries the opaque challenge the password step answered with (the spec's field name). */
export const TwoFactorLoginRequest = z.object({ user_id: z.string().min(1).max(200), code });
export const TwoFactorVerifyRequest = z.object({
  code: z.string().trim().regex(TOTP_CODE, { error: TWO_FACTOR_CODE_INVALID }),
});
export const TwoFactorDisableRequest = z.object({ password: anyPassword });

export const TwoFactorSetupResponse = z.object({ secret: z.string(), otpauth_url: z.string() });
export type TwoFactorSetupResponse = z.infer<typeof TwoFactorSetupResponse>;

export const TwoFactorEnabledResponse = z.object({
  message: z.string(),
  recovery_codes: z.array(z.string()),
});

export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;

/**
 * Also unlink every wallet (and Google or Twitter account) linked to the account and end every sign-in
 * they started; an account without a password keeps the one it is signed in with. Optional, not in the
 * spec: a password change and "revoke all" offer it to an owner who fears a thief added one.
 */
const unlinkWallets = z.boolean().optional();

export const ChangePasswordRequest = z.object({
  current_password: anyPassword,
  new_password: password,
  unlink_wallets: unlinkWallets,
});

/** `POST /auth/devices/revoke-all`: no body, or the optional unlink of every linked sign-in. */
export const RevokeDevicesRequest = z.object({ unlink_wallets: unlinkWallets }).optional();

/** The choice a password change and "revoke all" offer (a checkbox, a command option). */
export const UNLINK_WALLETS_OFFER = 'Also unlink my wallets and sign them out';

/** What a password change or "revoke all" adds to its message when it also unlinked sign-ins. */
export function unlinkedText(count: number): string {
  return count === 1
    ? 'One linked sign-in was unlinked and signed out.'
    : `${count} linked sign-ins were unlinked and signed out.`;
}
export const ForgotPasswordRequest = z.object({ email: z.email({ error: 'Enter a valid email address.' }) });
export const ResetPasswordRequest = z.object({
  token: z.string().min(1, { error: 'Reset token is missing.' }).max(256),
  newPassword: password,
});

/** How long a confirmation (`POST /auth/step-up`, or a fresh sign-in) lets sensitive actions through. */
export const STEP_UP_TTL_MS = 5 * 60 * 1000;

/** `POST /auth/step-up`: the account password, or a 2FA code (TOTP or recovery code). */
export const StepUpRequest = z
  .object({ password: anyPassword.optional(), code: code.optional() })
  .refine((b) => (b.password === undefined) !== (b.code === undefined), {
    error: 'Enter your password or a 2FA code.',
  });
export type StepUpRequest = z.input<typeof StepUpRequest>;

/** `GET /auth/step-up`: how this account can confirm, and until when the current sign-in is confirmed. */
export const StepUpState = z.object({
  password: z.boolean(),
  two_factor: z.boolean(),
  /** ISO time, or null when the sign-in is not confirmed now. */
  confirmed_until: z.string().nullable(),
});
export type StepUpState = z.infer<typeof StepUpState>;

/** `POST /auth/step-up` answers this on success. */
export const StepUpResponse = z.object({ confirmed_until: z.string() });

/** The `code` of the 403 a sensitive action answers without a recent confirmation. */
export const STEP_UP_REQUIRED = 'step_up_required';
/** The `code` of the 403 `POST /auth/step-up` answers an account that has neither a password nor 2FA. */
export const SIGN_IN_REQUIRED = 'sign_in_required';

export const STEP_UP_DETAILS = {
  required: "Confirm it's you: enter your password or a 2FA code.",
  signInAgain: "This account has no password or 2FA code: sign in again to confirm it's you.",
  noPassword: 'This account has no password: enter a 2FA code.',
} as const;

export const Device = z.object({
  id: z.string(),
  device_info: DeviceInfo,
  device_fingerprint: z.string(),
  last_used_at: z.string(),
  is_current: z.boolean(),
});
export type Device = z.infer<typeof Device>;
export const DeviceList = z.array(Device);

export const DeviceParams = z.object({ id: z.uuid({ error: 'Device not found.' }) });

export const VerifyResponse = z.object({ valid: z.literal(true), user_id: z.string(), role: Role });

/** Server details the browser and tests compare against. */
export const AUTH_DETAILS = {
  badCredentials: 'Incorrect username or password.',
  emailTaken: 'Email is already registered.',
  usernameTaken: 'Username is already taken.',
  invalidCode: 'Invalid 2FA code.',
  challengeExpired: 'Two-factor login expired. Please log in again.',
  invalidRefresh: 'Invalid refresh token.',
  refreshReused: 'Refresh token reuse detected. Please log in again.',
  unknownDevice: 'Device not recognised. Please log in again.',
  wrongCurrentPassword: 'Current password is incorrect.',
  wrongPassword: 'Incorrect password.',
  invalidReset: 'Invalid or expired reset token.',
  deviceNotFound: 'Device not found.',
  twoFactorAlreadyOn: 'Two-factor authentication is already enabled.',
  twoFactorNotStarted: 'Start two-factor setup first.',
  twoFactorNotOn: 'Two-factor authentication is not enabled.',
} as const;

export const AUTH_MESSAGES = {
  forgot: 'If an account with that email exists, a password reset link has been sent.',
  reset: 'Your password has been reset successfully.',
  passwordChanged: 'Password changed successfully.',
  twoFactorEnabled: 'Two-factor authentication enabled.',
  twoFactorDisabled: 'Two-factor authentication disabled.',
  deviceRemoved: 'Device removed.',
  devicesRevoked: 'All devices revoked.',
  loggedOut: 'Logged out.',
} as const;
