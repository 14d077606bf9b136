import { describe, expect, it } from 'vitest';
import { RECOVERY_TEXT, recoveryCodesFile, recoveryCodesText } from './recoveryCodes';

const CODES = ['ABCDE-FGHIJ', 'KLMNO-PQRST'];

describe('recovery codes to keep', () => {
  it('a file named with the product and the account, saying what the codes are and when they were made', () => {
    const file = recoveryCodesFile(CODES, 'kim', '2026-12-03T14:05:09.000Z');
    expect(file.name).toBe('signal-console-recovery-codes-kim.txt');
    expect(file.text).toBe(
      [
        'Signal Console recovery codes for kim',
        `Made 2026-12-03 14:05:09 UTC. ${RECOVERY_TEXT.store}`,
        '',
        'ABCDE-FGHIJ',
        'KLMNO-PQRST',
        '',
      ].join('\n'),
    );
  });

  it('an account name that a file name cannot hold is made safe', () => {
    expect(recoveryCodesFile(CODES, 'Ann Lee/../x', 0).name).toBe(
      'signal-console-recovery-codes-ann-lee-x.txt',
    );
    expect(recoveryCodesFile(CODES, 'ann@example.com', 0).name).toBe(
      'signal-console-recovery-codes-ann-example-com.txt',
    );
    expect(recoveryCodesFile(CODES, '  ', 0).name).toBe('signal-console-recovery-codes-account.txt');
  });

  it('the clipboard gets one code a line', () => {
    expect(recoveryCodesText(CODES)).toBe('ABCDE-FGHIJ\nKLMNO-PQRST\n');
  });
});
