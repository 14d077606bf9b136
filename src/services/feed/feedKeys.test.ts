import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createUiStore } from '../stores/ui';
import { createFakeClock } from '../testing/fakeClock';
import { fakeTradingApi } from '../trading/testing/api';
import { createPositionsStore } from '../trading/positionsStore';
import { createFeedStore } from './feedStore';
import { createFeedView } from './feedView';
import { handleFeedKey } from './feedKeys';
import { createQuickTradeModel } from './quickTrade';
import { completed, makeSignal } from './testing/signals';

function setup() {
  const { server, session, trading } = fakeTradingApi('tok');
  const feed = createFeedStore({ storage: memoryStorage(), clock: createFakeClock() });
  const view = createFeedView({ feed, watched: signal(new Set<string>()), loggedIn: session.isLoggedIn });
  const quickTrade = createQuickTradeModel({
    trading,
    session,
    ui: createUiStore(),
    positions: createPositionsStore(),
    clock: createFakeClock(),
  });
  feed.receive(completed(makeSignal(1), 'positive', 90, ['BTC']));
  feed.receive(completed(makeSignal(2), 'neutral', 20));
  const opened: string[] = [];
  view.onOpenUrl((url) => opened.push(url));
  const amounts = signal<readonly number[]>([100, 250]);
  const press = (
    key: string,
    extra: Partial<{ ctrlKey: boolean; inEditable: boolean; onControl: boolean }> = {},
  ) =>
    handleFeedKey(
      { key, ctrlKey: false, metaKey: false, altKey: false, inEditable: false, ...extra },
      { view, quickTrade, amounts },
    );
  return { server, view, quickTrade, opened, press };
}

describe('feed keys', () => {
  it('leaves Enter to the control it was pressed on: no source opens, the button is pressed', () => {
    const t = setup();
    t.press('j');
    expect(t.press('Enter', { onControl: true })).toBe(false);
    expect(t.opened).toEqual([]);
    expect(t.press('Enter')).toBe(true);
    expect(t.opened).toEqual(['https://news.example/2']);
  });

  it('j/k move the focus ring and Enter opens the focused source', () => {
    const t = setup();
    expect(t.press('j')).toBe(true);
    expect(t.view.focusedId.value).toBe('2');
    t.press('j');
    expect(t.view.focusedId.value).toBe('1');
    expect(t.press('Enter')).toBe(true);
    expect(t.opened).toEqual(['https://news.example/1']);
    t.press('k');
    expect(t.view.focusedId.value).toBe('2');
  });

  it('l/s open the quick-trade row of the focused card; digits trade its amounts; Escape closes', async () => {
    const t = setup();
    t.server.on('POST /orders', () => ({
      status: 200,
      body: {
        id: '9',
        symbol: 'BTC/USDT',
        side: 'sell',
        quantity: 1,
        price: 1,
        fee: 0,
        status: 'filled',
        realizedPnl: 0,
      },
    }));
    t.press('j');
    expect(t.press('l')).toBe(false); // the top card is GENERAL: no asset to trade
    t.press('j');
    expect(t.press('s')).toBe(true);
    expect(t.quickTrade.popover.value).toEqual({ signalId: '1', ticker: 'BTC', row: 'short' });
    expect(t.press('2')).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setTimeout(r, 0));
    expect(JSON.parse(t.server.requests[0]?.body ?? '{}')).toMatchObject({
      symbol: 'BTC/USDT',
      side: 'short',
      amount: 250,
    });
    t.press('l');
    expect(t.press('Escape')).toBe(true);
    expect(t.quickTrade.popover.value).toBeNull();
    expect(t.press('Escape')).toBe(false);
  });

  it('leaves keys with a modifier, typed in a field, or not its own', () => {
    const t = setup();
    expect(t.press('j', { ctrlKey: true })).toBe(false);
    expect(t.press('j', { inEditable: true })).toBe(false);
    expect(t.press('x')).toBe(false);
    expect(t.press('3')).toBe(false);
    expect(t.view.focusedId.value).toBeNull();
  });
});
