import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { RECOVERY_TEXT } from '../services/auth/recoveryCodes';
import { SecurityTab } from './SecurityTab';

const CODES = ['AAAAA-BBBBB', 'CCCCC-DDDDD'];

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function shown() {
  const r = renderWithServices(<SecurityTab />);
  act(() => {
    r.services.stores.session.setToken('t');
    r.services.stores.session.setUser({ username: 'kim', role: 'user', subscriptionStatus: null });
    r.services.stores.auth.setTwoFactor({ step: 'enabled', recoveryCodes: CODES });
  });
  const box = screen.getByTestId('recovery-codes');
  return { ...r, box, status: () => within(box).getByTestId('recovery-status').textContent };
}

describe('the recovery codes after 2FA is turned on', () => {
  it('Copy puts them on the clipboard, one a line, and says so', async () => {
    const writeText = vi.fn((_text: string) => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { box, status } = shown();
    fireEvent.click(within(box).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(status()).toBe(RECOVERY_TEXT.copied));
    expect(writeText.mock.calls).toEqual([['AAAAA-BBBBB\nCCCCC-DDDDD\n']]);
  });

  it('a browser that refuses the clipboard is told to use Download instead', async () => {
    const writeText = () => Promise.reject(new Error('denied'));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { box, status } = shown();
    fireEvent.click(within(box).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(status()).toBe(RECOVERY_TEXT.copyFailed));
  });

  it('Download saves a text file named with the product and the account', async () => {
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:codes';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const { box, status } = shown();
    fireEvent.click(within(box).getByRole('button', { name: 'Download' }));
    expect(names).toEqual(['signal-console-recovery-codes-kim.txt']);
    expect(status()).toBe(RECOVERY_TEXT.downloaded('signal-console-recovery-codes-kim.txt'));
    const text = await blobs[0]?.text();
    expect(text?.split('\n').slice(0, 1)).toEqual(['Signal Console recovery codes for kim']);
    expect(text).toContain('\nAAAAA-BBBBB\nCCCCC-DDDDD\n');
  });

  it('I have saved them hides the codes for good', () => {
    const { box, services } = shown();
    fireEvent.click(within(box).getByRole('button', { name: 'I have saved them' }));
    expect(screen.queryByTestId('recovery-codes')).toBeNull();
    expect(services.stores.auth.twoFactor.value).toEqual({ step: 'enabled', recoveryCodes: null });
  });
});
