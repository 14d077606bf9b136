import { dictionary } from '@zxcvbn-ts/language-common';
import type { ValidationIssue } from '../../../src/contracts/errors';
import { RequestValidationError } from '../../plugins/errors';

export const PASSWORD_COMMON =
  'This password is too common: choose one that is not on lists of leaked passwords.';
export const PASSWORD_PERSONAL = 'The password must not contain your username or email.';

export const PASSWORD_PATTERN =
  'This password is too easy to guess: choose one that is not a single repeated character or a run of keys.';

/** Runs a guesser tries first: keyboard rows, the alphabet and the digits, either way round. */
const RUNS = [
  'qwertyuiop',
  'asdfghjkl',
  'zxcvbnm',
  'azertyuiop',
  'qwertzuiop',
  'abcdefghijklmnopqrstuvwxyz',
  '01234567890',
];

/**
 * True for one character repeated (`aaaaaaaa`, eight spaces) or a short pattern repeated (`abababab`),
 * and for a walk along a keyboard row, the alphabet or the digits (`qwertyui`, `87654321`), possibly
 * repeated.
 */
export function isPattern(password: string): boolean {
  const lower = password.toLowerCase();
  for (let size = 1; size <= 3; size++) {
    if (
      lower.length > size &&
      lower ===
        lower
          .slice(0, size)
          .repeat(Math.ceil(lower.length / size))
          .slice(0, lower.length)
    ) {
      return true;
    }
  }
  const walks = RUNS.flatMap((r) => [r, [...r].reverse().join('')]);
  const chunks = lower.match(/.{1,10}/g) ?? [];
  return (
    lower.length > 0 &&
    walks.some((w) => w.includes(lower) || (chunks.length > 1 && chunks.every((c) => w.includes(c))))
  );
}

/** The ~49,000 most common passwords of public leaks (zxcvbn's list), lower-cased. */
let common: Set<string> | null = null;
const commonPasswords = (): Set<string> =>
  (common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())));

/** Digits and symbols that stand for letters (`P@ssw0rd`); a `1` is tried as both `i` and `l`. */
const LEET: Readonly<Record<string, string>> = {
  '@': 'a',
  '4': 'a',
  '8': 'b',
  '(': 'c',
  '3': 'e',
  '6': 'g',
  '9': 'g',
  '!': 'i',
  '|': 'i',
  '0': 'o',
  $: 's',
  '5': 's',
  '7': 't',
  '+': 't',
  '2': 'z',
};

/** A listed word a guesser dresses up must be at least this long to be looked for (`xy2024!` is not "xy"). */
const MIN_BASE = 4;

const stripEnds = (text: string): string => text.replace(/^[^a-z]+|[^a-z]+$/g, '');
const unleet = (text: string, one: 'i' | 'l'): string =>
  [...text].map((c) => (c === '1' ? one : (LEET[c] ?? c))).join('');

/**
 * The listed passwords a guesser tries this one as: itself, and (lower-cased) with the digits and symbols
 * at either end taken off (`Summer2024!`, `password1!`), with leetspeak read back (`P@ssw0rd`), and both.
 */
function guessedAs(lower: string): string[] {
  const forms = new Set<string>();
  for (const form of [lower, stripEnds(lower)]) {
    forms.add(form);
    for (const one of ['i', 'l'] as const) {
      const read = unleet(form, one);
      forms.add(read);
      forms.add(stripEnds(read));
    }
  }
  return [...forms].filter((f) => f === lower || f.length >= MIN_BASE);
}

/** Names shorter than this are not looked for inside a password (too many false alarms). */
const MIN_NAME = 4;

/**
 * What is wrong with a new password beyond its length (the contracts check that): it is one of the
 * most common leaked passwords, also with its capitals, the digits and symbols at its ends or leetspeak
 * taken off, or it contains the account's username, e-mail or the e-mail's name part. Null when it is
 * fine.
 */
export function passwordProblem(
  password: string,
  names: { username?: string | null; email?: string | null },
): string | null {
  const lower = password.toLowerCase();
  const listed = commonPasswords();
  if (guessedAs(lower).some((form) => listed.has(form))) return PASSWORD_COMMON;
  if (isPattern(password)) return PASSWORD_PATTERN;
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
