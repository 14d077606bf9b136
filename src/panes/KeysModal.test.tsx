import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../contracts/exchanges';
import { VENUE_KEY_FORMS, type VenueName } from '../contracts/venues';
import { renderWithServices } from '../app/testing/renderWithServices';
import { KeysModal } from './KeysModal';

afterEach(cleanup);

function opened() {
  const r = renderWithServices(<KeysModal />);
  const saved: ExchangeKey[] = [];
  const bodies: Record<string, unknown>[] = [];
  r.server.on('GET /exchanges/', () => ({ status: 200, body: saved }));
  r.server.on('POST /exchanges/', (req) => {
    const body = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
    bodies.push(body);
    const apiKey = String(body.apiKey);
    const key: ExchangeKey = {
      id: `id-${saved.length + 1}`,
      exchangeName: body.exchangeName as VenueName,
      environment: body.environment === 'demo' ? 'demo' : 'live',
      keyHint: `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`,
      permissions: ['read', 'trade'],
      status: 'verified',
      warnings: [],
      created_at: '2026-11-23T09:00:00.000Z',
    };
    saved.push(key);
    return { status: 201, body: key };
  });
  act(() => {
    r.services.stores.session.setToken('t');
    r.services.keys.show();
  });
  const modal = screen.getByRole('dialog', { name: 'API Key Management' });
  const field = (label: string) => within(modal).queryByLabelText(label, { exact: true });
  const fill = (label: string, value: string) =>
    fireEvent.change(field(label) as HTMLInputElement, { target: { value } });
  const choose = (venue: VenueName) => fill('Exchange', venue);
  return { ...r, modal, field, fill, choose, bodies };
}

describe('API Settings: the Exchange select', () => {
  it('offers the three venues; the form, the checklist and the demo option follow the choice', async () => {
    const { modal, field, choose } = opened();
    await waitFor(() => expect(modal.textContent).toContain(KEY_TEXTS.none));
    const exchange = field('Exchange') as HTMLSelectElement;
    expect([...exchange.options].map((o) => [o.value, o.text])).toEqual([
      ['binance', 'Binance'],
      ['bybit', 'Bybit'],
      ['okx', 'OKX'],
    ]);
    expect(exchange.value).toBe('binance');
    expect(field('Passphrase')).toBeNull();
    const checklist = within(modal).getByTestId('key-checklist');
    expect(checklist.textContent).toContain(VENUE_KEY_FORMS.binance.where);

    choose('okx');
    const passphrase = field('Passphrase') as HTMLInputElement;
    expect(passphrase.type).toBe('password');
    expect(
      within(checklist)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([...VENUE_KEY_FORMS.okx.checklist]);
    expect(checklist.textContent).toContain(VENUE_KEY_FORMS.okx.where);
    const demo = [...(field('Environment') as HTMLSelectElement).options].find((o) => o.value === 'demo');
    expect(demo?.text).toBe('Demo (OKX demo trading)');

    choose('bybit');
    expect(field('Passphrase')).toBeNull();
    expect(checklist.textContent).toContain(VENUE_KEY_FORMS.bybit.where);
  });

  it('a passphrase typed for OKX is gone once another venue is chosen', () => {
    const { field, fill, choose } = opened();
    choose('okx');
    fill('Passphrase', 'secret words');
    choose('binance');
    choose('okx');
    expect((field('Passphrase') as HTMLInputElement).value).toBe('');
  });

  it('OKX without a passphrase is refused in the form, with no call', async () => {
    const { modal, fill, choose, server } = opened();
    choose('okx');
    fill('API Key', 'OkxKey0123456789');
    fill('Secret Key', 'okx-secret');
    fireEvent.click(within(modal).getByRole('button', { name: 'Save Key' }));
    await waitFor(() =>
      expect(within(modal).getByRole('alert').textContent).toBe(KEY_TEXTS.passphraseMissing),
    );
    expect(server.count('POST /exchanges/')).toBe(0);
    fill('Passphrase', 'p');
    expect(within(modal).queryByRole('alert')).toBeNull();
  });

  it('saves a Bybit and an OKX key and lists each with its venue; the form stays on the venue, emptied', async () => {
    const { modal, field, fill, choose, bodies } = opened();
    choose('bybit');
    fill('Environment', 'live');
    fill('API Key', 'BybitKey0123456789');
    fill('Secret Key', 'bybit-secret');
    fireEvent.click(within(modal).getByRole('button', { name: 'Save Key' }));
    await waitFor(() => expect(within(modal).getAllByTestId('key-row')).toHaveLength(1));
    await waitFor(() => expect((field('API Key') as HTMLInputElement).value).toBe(''));
    expect((field('Exchange') as HTMLSelectElement).value).toBe('bybit');
    // The next key is a demo key again unless Live is picked for it too.
    expect((field('Environment') as HTMLSelectElement).value).toBe('demo');

    choose('okx');
    fill('API Key', 'OkxKey0123456789');
    fill('Secret Key', 'okx-secret');
    fill('Passphrase', 'okx pass');
    fireEvent.click(within(modal).getByRole('button', { name: 'Save Key' }));
    await waitFor(() => expect(within(modal).getAllByTestId('key-row')).toHaveLength(2));
    expect(bodies.map((b) => [b.exchangeName, b.environment, b.passphrase])).toEqual([
      ['bybit', 'live', undefined],
      ['okx', 'demo', 'okx pass'],
    ]);
    const rows = within(modal).getAllByTestId('key-row');
    expect(rows.map((row) => row.querySelector('.key-main')?.getAttribute('title'))).toEqual([
      'Bybit · LIVE · Bybi…6789',
      'OKX · DEMO · OkxK…6789',
    ]);
    expect(rows[1]?.querySelector('.key-main')?.textContent).toBe('OKX·DEMO·OkxK…6789verifiedDelete');
    expect(within(modal).getByRole('button', { name: 'Delete key OKX · DEMO · OkxK…6789' })).toBeTruthy();
    expect(modal.textContent).not.toContain('okx pass');
  });
});

describe('API Settings: the Environment select', () => {
  it('a new key is Demo; Live says in plain words that real funds trade', () => {
    const { modal, field, fill, choose } = opened();
    const environment = field('Environment') as HTMLSelectElement;
    expect(environment.value).toBe('demo');
    expect([...environment.options].map((o) => [o.value, o.text])).toEqual([
      ['demo', 'Demo (Binance demo trading)'],
      ['live', 'Live (real funds)'],
    ]);
    expect(within(modal).queryByTestId('key-live-warning')).toBeNull();

    fill('Environment', 'live');
    expect(within(modal).getByTestId('key-live-warning').textContent).toBe(
      'Live: orders sent with this key trade real funds on your Binance account.',
    );
    choose('bybit');
    expect(within(modal).getByTestId('key-live-warning').textContent).toBe(KEY_TEXTS.liveWarning('bybit'));
    fill('Environment', 'demo');
    expect(within(modal).queryByTestId('key-live-warning')).toBeNull();
  });

  it('a key saved without touching the select is sent as demo', async () => {
    const { modal, fill, bodies } = opened();
    fill('API Key', 'PlainKey0123456789');
    fill('Secret Key', 'plain-secret');
    fireEvent.click(within(modal).getByRole('button', { name: 'Save Key' }));
    await waitFor(() => expect(within(modal).getAllByTestId('key-row')).toHaveLength(1));
    expect(bodies.map((b) => b.environment)).toEqual(['demo']);
  });
});
