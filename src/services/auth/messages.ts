/** docs/product.md §5 and §8 texts for the auth and account flows, word for word. */
export const AUTH_TEXT = {
  loginFailed: 'Login failed. Please check your credentials.',
  invalidTwoFactor: 'Invalid 2FA code.',
  signupFailed: 'Sign up failed. Please try again.',
  genericError: 'An error occurred. Please try again later.',
  loadDevicesFailed: 'Failed to load devices.',
  loadActivityFailed: 'Failed to load the activity log.',
  loadUserFailed: 'Failed to load user data.',
  changePasswordFailed: 'Failed to change password.',
  removeDeviceFailed: 'Failed to remove device.',
  revokeAllFailed: 'Failed to revoke all devices.',
  setupFailed: 'Failed to start 2FA setup.',
  verifyFailed: 'Verification failed. The code may be incorrect or expired.',
  disableFailed: 'Failed to disable 2FA. Please check your password.',
  resetFailed: 'Failed to reset password. The link may have expired.',
  codeInvalid: 'Please enter a valid 6-digit code.',
  newPasswordsDiffer: 'New passwords do not match.',
  resetPasswordsDiffer: 'Passwords do not match.',
  passwordTooShort: 'Password must be at least 8 characters long.',
  disableNeedsPassword: 'Please enter your password to disable 2FA.',
  noResetToken: 'No reset token found. Please request a new password reset link.',
  resetTokenMissing: 'Reset token is missing.',
  mustLogIn: 'You must be logged in.',
  /** docs/product.md §5 says the three are required; it gives no text, so this one is ours. */
  signupFieldsRequired: 'Email, username and password are required.',
  /** docs/product.md §4 says signup returns to LOGIN "with a success message"; the text is ours. */
  signupSucceeded: 'Registration successful! Please log in.',
} as const;

/** docs/product.md §5: a 2FA code is exactly 6 characters. A recovery code (`XXXXX-XXXXX`) is accepted at login too. */
export function isCodeShaped(code: string, allowRecovery = false): boolean {
  const trimmed = code.trim();
  return /^\d{6}$/.test(trimmed) || (allowRecovery && /^[A-Za-z2-7]{5}-[A-Za-z2-7]{5}$/.test(trimmed));
}
