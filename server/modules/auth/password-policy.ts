import { dictionary } from '@zxcvbn-ts/language-common';
import type { ValidationIssue } from '../../../src/contracts/errors';
import { RequestValidationError } from '../../plugins/errors';

export const PASSWORD_COMMON =
  'This password is too common: choose one that is not on lists of leaked passwords.';
export const PASSWORD_PERSONAL = 'The password must not contain your username or email.';

/** The ~49,000 most common passwords of public leaks (zxcvbn's list), lower-cased. */
let common: Set<string> | null = null;
const commonPasswords = (): Set<string> =>
  (common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())));

/** Names shorter than this are not looked for inside a password (too many false alarms). */
const MIN_NAME = 4;

/**
 * What is wrong with a new password beyond its length (the contracts check that): it is one of the
 * most common leaked passwords, or it contains the account's username, e-mail or the e-mail's name part.
 * Null when it is fine.
 */
export function passwordProblem(
  password: string,
  names: { username?: string | null; email?: string | null },
): string | null {
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return PASSWORD_COMMON;
  const email = names.email?.toLowerCase() ?? '';
  const candidates = [names.username?.toLowerCase() ?? '', email, email.split('@')[0] ?? ''];
  if (candidates.some((n) => n.length >= MIN_NAME && lower.includes(n))) return PASSWORD_PERSONAL;
  return null;
}

/** Refuses a new password with a 422 on `field`, in the same shape as the contracts' own checks. */
export function assertPasswordAllowed(
  password: string,
  names: { username?: string | null; email?: string | null },
  field: string,
): void {
  const problem = passwordProblem(password, names);
  if (problem === null) return;
  const issue: ValidationIssue = { loc: ['body', field], msg: problem, type: 'custom' };
  throw new RequestValidationError([issue]);
}
