import { describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../../contracts/exchanges';
import { createFakeApi } from '../testing/fakeApi';
import { EMPTY_DRAFT, createKeysModal, type KeyDraft } from './keysModal';

const KEY: ExchangeKey = {
  id: '0b3c9a52-6f1e-4d3a-9c2b-5e8f7a1d2c3b',
  exchangeName: 'binance',
  environment: 'live',
  keyHint: 'With…y123',
  permissions: ['read', 'futures', 'withdraw'],
  status: 'verified',
  warnings: ['withdrawals-enabled'],
  created_at: '2026-11-23T09:00:00.000Z',
};

function setup(token: string | null = 'tok', confirm = true) {
  const { server, session, api } = createFakeApi(token);
  const saved: ExchangeKey[] = [];
  const asked: string[] = [];
  const details: (readonly string[] | undefined)[] = [];
  let deleted = 0;
  server.on('GET /exchanges/', () => ({ status: 200, body: saved }));
  server.on('POST /exchanges/', (r) => {
    const body = JSON.parse(r.body ?? '{}') as Record<string, unknown>;
    if (body.confirmWithdrawals !== true)
      return { status: 409, body: { detail: KEY_TEXTS.withdrawalsRefused() } };
    saved.push(KEY);
    return { status: 201, body: KEY };
  });
  server.on(`DELETE /exchanges/${KEY.id}`, () => {
    saved.splice(0);
    return { status: 200, body: { message: KEY_TEXTS.deleted } };
  });
  const model = createKeysModal({
    main: api.main,
    session,
    dialogs: {
      confirm: (q, more) => {
        asked.push(q);
        details.push(more?.details);
        return confirm;
      },
      alert: () => undefined,
    },
    onDeleted: () => void (deleted += 1),
  });
  return { model, server, asked, details, saved, deleted: () => deleted };
}

const draft: KeyDraft = { ...EMPTY_DRAFT, apiKey: ' WithdrawKey123 ', secretKey: 'sec' };

describe('API Settings modal model', () => {
  it('loads the saved keys on open: Loading keys..., then the empty state', async () => {
    const { model } = setup();
    model.show();
    expect(model.list.value).toEqual({ status: 'loading' });
    await expect.poll(() => model.list.value).toEqual({ status: 'ready', items: [] });
  });

  it('refuses blank fields and a logged-out user without calling the server', async () => {
    const { model, server } = setup();
    expect(await model.save({ ...draft, apiKey: '  ' })).toBe(false);
    expect(model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.empty });
    const guest = setup(null);
    expect(await guest.model.save(draft)).toBe(false);
    expect(guest.model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.loggedOut });
    expect(server.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('a key that can withdraw waits for the user, then saves with confirmWithdrawals', async () => {
    const { model, server } = setup();
    expect(await model.save(draft)).toBe(false);
    expect(model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.withdrawalsRefused() });
    expect(model.withdrawalsPending.value).toEqual(draft);
    expect(await model.save(draft, true)).toBe(true);
    expect(model.withdrawalsPending.value).toBeNull();
    expect(model.notice.value).toEqual({ tone: 'success', text: KEY_TEXTS.saved });
    const posts = server.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body ?? '{}'));
    expect(posts.at(-1)).toMatchObject({ apiKey: 'WithdrawKey123', confirmWithdrawals: true });
    expect(model.list.value).toEqual({ status: 'ready', items: [KEY] });
  });

  it('Delete asks first; no sends nothing, yes deletes and says so', async () => {
    const no = setup('tok', false);
    await no.model.save(draft, true);
    await no.model.remove(KEY.id);
    expect(no.asked).toEqual([KEY_TEXTS.confirmDelete]);
    // The question names the key: its environment and hint.
    expect(no.details[0]?.[0]).toBe('LIVE Binance key With…y123');
    expect(no.server.requests.some((r) => r.method === 'DELETE')).toBe(false);
    const yes = setup('tok', true);
    await yes.model.save(draft, true);
    await yes.model.remove(KEY.id);
    expect(yes.model.notice.value).toEqual({ tone: 'success', text: KEY_TEXTS.deleted });
    expect(yes.deleted()).toBe(1);
    expect(yes.model.list.value).toEqual({ status: 'ready', items: [] });
  });
});

describe('API Settings stale messages', () => {
  it('"cannot be empty" goes away once both fields are filled', async () => {
    const { model } = setup();
    await model.save({ ...draft, secretKey: '' });
    expect(model.notice.value).toEqual({ tone: 'error', text: KEY_TEXTS.empty });
    model.edited({ ...draft, secretKey: '' });
    expect(model.notice.value?.text).toBe(KEY_TEXTS.empty);
    model.edited(draft);
    expect(model.notice.value).toBeNull();
  });
});
