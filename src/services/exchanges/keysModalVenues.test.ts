import { describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../../contracts/exchanges';
import { VENUE_KEY_FORMS, type VenueName } from '../../contracts/venues';
import { createFakeApi } from '../testing/fakeApi';
import { keyName } from './keys';
import { EMPTY_DRAFT, KEY_VENUES, createKeysModal, keyFormView, onVenue, type KeyDraft } from './keysModal';

const ID = '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

/** The server's answer to a saved key: the venue and environment it was sent with. */
const savedAs = (body: Record<string, unknown>, status: ExchangeKey['status'] = 'verified'): ExchangeKey => ({
  id: ID,
  exchangeName: body.exchangeName as VenueName,
  environment: body.environment === 'demo' ? 'demo' : 'live',
  keyHint: 'Venu…1234',
  permissions: ['read', 'trade'],
  status,
  warnings: [],
  created_at: '2026-11-23T09:00:00.000Z',
});

function setup(options: { status?: ExchangeKey['status']; hold?: Promise<void> } = {}) {
  const { server, session, api } = createFakeApi('tok');
  const saved: ExchangeKey[] = [];
  const bodies: Record<string, unknown>[] = [];
  const details: (readonly string[] | undefined)[] = [];
  server.on('GET /exchanges/', () => ({ status: 200, body: saved }));
  server.on('POST /exchanges/', async (r) => {
    const body = JSON.parse(r.body ?? '{}') as Record<string, unknown>;
    bodies.push(body);
    await options.hold;
    const key = savedAs(body, options.status);
    saved.push(key);
    return { status: 201, body: key };
  });
  const model = createKeysModal({
    main: api.main,
    session,
    dialogs: {
      confirm: (_q, more) => {
        details.push(more?.details);
        return false;
      },
      alert: () => undefined,
    },
  });
  return { model, server, bodies, details };
}

const typed = (venue: VenueName, more: Partial<KeyDraft> = {}): KeyDraft => ({
  ...onVenue(EMPTY_DRAFT, venue),
  apiKey: ` ${venue}Key0123 `,
  secretKey: ` ${venue}-secret `,
  ...more,
});

describe('API Settings form per venue', () => {
  it('offers Binance, Bybit and OKX; only OKX asks for a passphrase; the demo option names the venue', () => {
    expect(KEY_VENUES.map((v) => [v.venue, v.label, v.passphrase])).toEqual([
      ['binance', 'Binance', false],
      ['bybit', 'Bybit', false],
      ['okx', 'OKX', true],
    ]);
    expect(keyFormView('bybit').demoLabel).toBe('Demo (Bybit demo trading)');
    expect(keyFormView('okx').checklist).toEqual(VENUE_KEY_FORMS.okx.checklist);
    expect(keyFormView('binance').where).toBe(VENUE_KEY_FORMS.binance.where);
  });

  it('switching venue keeps the key and secret but drops a passphrase typed for OKX', () => {
    const okx = typed('okx', { passphrase: 'my pass' });
    expect(onVenue(okx, 'okx')).toEqual(okx);
    const bybit = onVenue(okx, 'bybit');
    expect(bybit).toEqual({ ...okx, exchangeName: 'bybit', passphrase: '' });
    // Back on OKX the passphrase is asked for again.
    expect(onVenue(bybit, 'okx').passphrase).toBe('');
  });

  it('an OKX key without its passphrase is refused before any call, and the message goes once it is typed', async () => {
    const { model, server } = setup();
    expect(await model.save(typed('okx', { passphrase: '   ' }))).toBe(false);
    expect(model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.passphraseMissing });
    expect(server.count('POST /exchanges/')).toBe(0);
    model.edited(typed('okx', { apiKey: 'other' }));
    expect(model.notice.value?.text).toBe(KEY_TEXTS.passphraseMissing);
    model.edited(typed('okx', { passphrase: 'p' }));
    expect(model.notice.value).toBeNull();
    // Choosing a venue without a passphrase also answers it.
    await model.save(typed('okx'));
    model.edited(onVenue(typed('okx'), 'binance'));
    expect(model.notice.value).toBeNull();
  });

  it('a passphrase for a venue that has none is refused before any call', async () => {
    const { model, server } = setup();
    expect(await model.save(typed('bybit', { passphrase: 'x' }))).toBe(false);
    expect(model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.passphraseUnused('bybit') });
    expect(server.count('POST /exchanges/')).toBe(0);
  });

  it('sends the venue with the trimmed key; the passphrase goes only with an OKX key', async () => {
    const { model, bodies } = setup();
    expect(await model.save(typed('binance', { environment: 'live' }))).toBe(true);
    expect(await model.save(typed('bybit', { environment: 'demo' }))).toBe(true);
    expect(await model.save(typed('okx', { passphrase: ' my pass ', environment: 'live' }))).toBe(true);
    expect(bodies).toEqual([
      {
        exchangeName: 'binance',
        apiKey: 'binanceKey0123',
        secretKey: 'binance-secret',
        environment: 'live',
        confirmWithdrawals: false,
      },
      {
        exchangeName: 'bybit',
        apiKey: 'bybitKey0123',
        secretKey: 'bybit-secret',
        environment: 'demo',
        confirmWithdrawals: false,
      },
      {
        exchangeName: 'okx',
        apiKey: 'okxKey0123',
        secretKey: 'okx-secret',
        passphrase: 'my pass',
        environment: 'live',
        confirmWithdrawals: false,
      },
    ]);
    expect(model.notice.value).toEqual({ tone: 'success', text: KEY_TEXTS.saved });
  });

  it('a key saved unverified names its venue, and so does the delete question', async () => {
    const { model, details } = setup({ status: 'unverified' });
    expect(await model.save(typed('okx', { passphrase: 'p', environment: 'demo' }))).toBe(true);
    expect(model.notice.value).toEqual({
      tone: 'info',
      text: `${KEY_TEXTS.saved} ${KEY_TEXTS.unverified('okx')}`,
    });
    await model.remove(ID);
    expect(details[0]).toEqual([
      'DEMO OKX key Venu…1234',
      'Orders sent to it will go to the paper exchange; it stays valid at OKX until you revoke it there.',
    ]);
  });

  it('names a saved key by venue, environment and hint', () => {
    expect(keyName({ exchangeName: 'bybit', environment: 'live', keyHint: 'ab…cd' })).toBe(
      'Bybit · LIVE · ab…cd',
    );
    expect(keyName({ exchangeName: 'okx', environment: 'demo', keyHint: 'ab…cd' })).toBe(
      'OKX · DEMO · ab…cd',
    );
  });

  it('30 saves at once send one key: the others find a save under way', async () => {
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { model, bodies } = setup({ hold });
    const all = Array.from({ length: 30 }, () => model.save(typed('bybit')));
    release();
    const results = await Promise.all(all);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(bodies).toHaveLength(1);
    expect(model.busy.value).toBe(false);
  });
});
