import { utcStamp, type Moment } from '../time';

/** The product's name as a file name starts with it. */
const PRODUCT = 'Signal Console';
const PRODUCT_SLUG = 'signal-console';

/** What to do with the codes, said the same way in the window, the file and the terminal. */
export const RECOVERY_TEXT = {
  intro: 'Recovery codes: each works once in place of a code. Save them now; they are not shown again.',
  store:
    'Store them now, somewhere other than this computer (a password manager, or on paper): they are not shown again, and each works once in place of a 2FA code.',
  copied: 'Recovery codes copied. Paste them somewhere safe.',
  copyFailed: 'The browser did not allow copying: use Download, or select the codes and copy them by hand.',
  downloaded: (name: string) => `Saved as ${name}. Move it somewhere safe.`,
} as const;

/** `kim`, `ann-example-com`: an account name as a file name may hold it. */
const fileSafe = (account: string): string =>
  account
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'account';

/** The codes one per line, as the clipboard gets them. */
export const recoveryCodesText = (codes: readonly string[]): string => `${codes.join('\n')}\n`;

/**
 * The downloaded file: `signal-console-recovery-codes-kim.txt`, naming the product and the account, with
 * what the codes are, when they were made, and one code a line.
 */
export function recoveryCodesFile(
  codes: readonly string[],
  account: string,
  madeAt: Moment,
): { name: string; text: string } {
  const text = [
    `${PRODUCT} recovery codes for ${account}`,
    `Made ${utcStamp(madeAt)}. ${RECOVERY_TEXT.store}`,
    '',
    ...codes,
    '',
  ].join('\n');
  return { name: `${PRODUCT_SLUG}-recovery-codes-${fileSafe(account)}.txt`, text };
}
