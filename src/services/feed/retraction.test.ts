import { describe, expect, it } from 'vitest';
import type { Signal } from '../../contracts/signals';
import { createApi } from '../api';
import { memoryStorage } from '../storage';
import { createStores } from '../stores';
import { createFakeClock } from '../testing/fakeClock';
import { createFakeServer } from '../testing/fakeServer';
import { ALERTED_KEY } from './alertMemory';
import { createFeedService } from './feedService';
import { retractionView } from './retraction';
import { completed, fakeStream, makeSignal } from './testing/signals';

const retractionOf = (id: string, reason = 'The SEC did not approve any ETF; our account was hacked.') => ({
  signal_id: id,
  received_at: '2026-01-01T13:15:00.000Z',
  reason,
  kind: 'compromised' as const,
});

describe('retraction on the cards', () => {
  it('marks a retracted story RETRACTED with the retraction’s words, and links a retraction back', () => {
    const rumour = { ...completed(makeSignal(1), 'positive', 90, ['BTC']), retraction: retractionOf('2') };
    expect(retractionView(rumour)).toEqual({
      mark: {
        label: 'RETRACTED',
        by: '2',
        hover:
          'Retracted by #2 (hacked or unauthorized account): The SEC did not approve any ETF; our account was hacked.',
      },
      link: null,
    });
    const denial = { ...completed(makeSignal(2), 'negative', 85, ['BTC']), retracts: '1' };
    expect(retractionView(denial)).toEqual({ mark: null, link: { label: 'retracts #1', target: '1' } });
    // Copies saved before retractions existed have neither field.
    expect(retractionView(makeSignal(3))).toEqual({ mark: null, link: null });
  });

  it('marks a story a less trusted source takes back DISPUTED, not RETRACTED; a retraction after it wins', () => {
    const dispute = {
      ...retractionOf('5', 'The ETF post is fake.'),
      kind: 'denial' as const,
      source_name: 'X',
    };
    const story = { ...completed(makeSignal(4), 'positive', 90, ['BTC']), retraction: null, dispute };
    expect(retractionView(story).mark).toEqual({
      label: 'DISPUTED',
      by: '5',
      hover: 'Disputed by #5, from X, a less trusted source (denied; unconfirmed): The ETF post is fake.',
    });
    expect(retractionView({ ...story, retraction: retractionOf('6') }).mark?.label).toBe('RETRACTED');
  });
});

function setup(storage = memoryStorage()) {
  const clock = createFakeClock(Date.UTC(2026, 0, 1, 13));
  const stores = createStores({ storage, clock });
  const server = createFakeServer();
  server.on('GET /signals', () => ({ status: 200, body: [] }));
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate: () => undefined,
  });
  const stream = fakeStream();
  const sounds: string[] = [];
  const feed = createFeedService({
    stores,
    main: api.main,
    trading: api.trading,
    mainBase: '/api',
    prices: { watch: () => () => undefined },
    stream: stream.port,
    sound: { play: (k) => void sounds.push(k) },
    clock,
  });
  const stop = feed.start();
  return { stores, stream, sounds, stop, storage };
}

describe('alerts on a retraction', () => {
  const rumour = completed(makeSignal(1, { content: 'SEC approves spot bitcoin ETFs' }), 'positive', 90, [
    'BTC',
  ]);
  const retracted = (s: Signal): Signal => ({ ...s, retraction: retractionOf('2') });

  it('alert again when a story this browser alerted on is retracted, whatever the threshold now', () => {
    const t = setup();
    t.stream.signal(rumour);
    expect(t.sounds).toEqual(['positive']);
    // The threshold is raised past the rumour's impact before its denial arrives.
    t.stores.alerts.update({ notificationImpactThreshold: 95 });
    t.stream.signal(completed(makeSignal(2, { content: 'SEC: account hacked' }), 'neutral', 40, ['BTC']));
    t.stream.signal(retracted(rumour));
    // The rumour was bullish: its retraction sounds the other way, once however often it is sent.
    expect(t.sounds).toEqual(['positive', 'negative']);
    t.stream.signal(retracted(rumour));
    expect(t.sounds).toEqual(['positive', 'negative']);
    expect(t.stores.feed.highlighted.value.has('1')).toBe(true);
    t.stop();
  });

  it('stays quiet for the retraction of a story it never alerted on', () => {
    const t = setup();
    const quiet = completed(makeSignal(5), 'positive', 60, ['BTC']);
    t.stream.signal(quiet);
    t.stream.signal(retracted(quiet));
    expect(t.sounds).toEqual([]);
    t.stop();
  });

  it('remembers its alerts across a reload, and never alerts on a story already retracted', () => {
    const first = setup();
    first.stream.signal(rumour);
    first.stop();
    expect(JSON.parse(first.storage.get(ALERTED_KEY) ?? '[]')).toEqual(['1']);
    const again = setup(first.storage);
    again.stream.signal(retracted(rumour));
    expect(again.sounds).toEqual(['negative']);
    const late = retracted(completed(makeSignal(7), 'negative', 99, ['ETH']));
    again.stream.signal(late);
    expect(again.sounds).toEqual(['negative']);
    again.stop();
  });
});
