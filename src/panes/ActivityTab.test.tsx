import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../contracts/activity';
import { renderWithServices } from '../app/testing/renderWithServices';
import { ActivityTab } from './ActivityTab';

afterEach(cleanup);

const ENTRIES: ActivityEntry[] = [
  {
    id: '2',
    at: '2026-12-03T14:05:09.000Z',
    kind: 'sign_in',
    text: 'Signed in with a password and a recovery code (9 left)',
    device: 'Firefox on Windows',
    place: 'Porto',
  },
  {
    id: '1',
    at: '2026-12-02T23:59:59.000Z',
    kind: 'sign_in',
    text: 'Signed in with a password and a 2FA code',
    device: null,
    place: null,
  },
];

describe('the Activity tab', () => {
  it('shows a recovery-code sign-in as one, each line stamped in UTC', () => {
    const { services } = renderWithServices(<ActivityTab />);
    act(() => services.stores.auth.setActivity({ status: 'ready', items: ENTRIES }));
    const rows = within(screen.getByTestId('activity-list')).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      '2026-12-03 14:05:09 UTCSigned in with a password and a recovery code (9 left)Firefox on Windows, near Porto',
      '2026-12-02 23:59:59 UTCSigned in with a password and a 2FA code',
    ]);
    expect(rows[0]?.querySelector('time')?.getAttribute('dateTime')).toBe('2026-12-03T14:05:09.000Z');
  });
});
