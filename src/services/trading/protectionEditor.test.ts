import { describe, expect, it } from 'vitest';
import { NO_PROTECTION } from '../../contracts/protection';
import { createTestConsole } from '../../commands/testing/scripted';
import type { FakeReply } from '../testing/fakeServer';
import { createProtectionEditor, EMPTY_FIELDS, fieldsOf, parseProtectionFields } from './protectionEditor';

const fields = (over: Partial<typeof EMPTY_FIELDS>) => ({ ...EMPTY_FIELDS, ...over });

describe('the protection form', () => {
  it('reads percent or price, a trailing % with or without its sign, and minutes or 30m/2h/1d', () => {
    expect(
      parseProtectionFields(
        fields({ stopLoss: ' 2% ', takeProfit: '105000', trailing: '1', exitAfter: '90' }),
      ),
    ).toEqual({
      ok: true,
      protection: { stop_loss_pct: 2, take_profit_price: 105_000, trailing_pct: 1, exit_after_min: 90 },
    });
    expect(parseProtectionFields(fields({ trailing: '0.5%', exitAfter: '2h' }))).toEqual({
      ok: true,
      protection: { trailing_pct: 0.5, exit_after_min: 120 },
    });
  });

  it.each([
    [{}, 'Fill in at least one leg, or use Remove.'],
    [{ stopLoss: 'abc' }, "Stop loss: 'abc' is neither a percent (2%) nor a price (98000)."],
    [{ takeProfit: '-5%' }, "Take profit: '-5%' is neither a percent (2%) nor a price (98000)."],
    [{ trailing: 'x' }, "Trailing stop: 'x' is not a percent (1 or 1%)."],
    [{ exitAfter: 'soon' }, "Exit after: 'soon' is not a time (30 minutes, 30m, 2h or 1d)."],
    [{ trailing: '11' }, 'Trailing stop must be between 0.1% and 10%.'],
    [{ exitAfter: '20000' }, 'Exit after must be at most 7 days.'],
    [{ stopLoss: '0' }, 'Stop loss price must be above 0.'],
  ])('refuses %j: %s', (typed, message) => {
    expect(parseProtectionFields(fields(typed))).toEqual({ ok: false, message });
  });

  it('opens on the legs still working, and the minutes left to the time exit', () => {
    const now = Date.parse('2026-11-26T14:00:30Z');
    expect(
      fieldsOf(
        {
          stop_loss: { price: 94_000, on: 'exchange', state: 'triggered' },
          take_profit: { price: 101_000, on: 'exchange', state: 'resting' },
          trailing: null,
          exit_at: '2026-11-26T14:30:00Z',
        },
        now,
      ),
    ).toEqual({ stopLoss: '', takeProfit: '101000', trailing: '', exitAfter: '30' });
    expect(fieldsOf(NO_PROTECTION, now)).toEqual(EMPTY_FIELDS);
  });
});

describe('the protection editor', () => {
  function setup() {
    const s = createTestConsole({ token: 'tok' });
    const printed: string[] = [];
    let confirm = true;
    const editor = createProtectionEditor({
      trading: s.api.trading,
      positions: s.stores.positions,
      dialogs: { confirm: () => confirm, alert: () => undefined },
      print: (lines) => printed.push(...lines.map((l) => l.text)),
    });
    return { ...s, editor, printed, refuse: () => void (confirm = false) };
  }

  it('sends one PUT for a row however many saves arrive while it is in flight', async () => {
    const { editor, server } = setup();
    const replies: ((r: FakeReply) => void)[] = [];
    server.on('PUT /positions/BTCUSDT/protection', () => new Promise<FakeReply>((r) => replies.push(r)));
    editor.open('BTC/USDT');
    const saves = Array.from({ length: 30 }, () => editor.save('BTC/USDT', fields({ stopLoss: '2%' })));
    await new Promise((r) => setTimeout(r, 10));
    expect(server.count('PUT /positions/BTCUSDT/protection')).toBe(1);
    expect(editor.busy.value.has('BTC/USDT')).toBe(true);
    replies[0]?.({
      status: 200,
      body: {
        message: 'Protection set on BTC/USDT.',
        protection: {
          ...NO_PROTECTION,
          stop_loss: { price: 94_000, on: 'exchange', state: 'resting' },
          unprotected_ms: null,
          note: null,
        },
      },
    });
    const results = await Promise.all(saves);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(editor.busy.value.size).toBe(0);
    expect(editor.editing.value).toBeNull();
  });

  it("keeps the form open with the server's message when it refuses, and Remove sends nothing unless confirmed", async () => {
    const { editor, server, printed, refuse, stores } = setup();
    server.on('PUT /positions/ETHUSDT/protection', () => ({
      status: 404,
      body: { detail: 'No open ETH/USDT position.' },
    }));
    editor.open('ETH/USDT');
    expect(await editor.save('ETH/USDT', fields({ takeProfit: '5%' }))).toBe(false);
    expect(editor.error.value).toEqual({ symbol: 'ETH/USDT', message: 'No open ETH/USDT position.' });
    expect(editor.editing.value).toBe('ETH/USDT');
    expect(printed).toEqual([]);
    expect(stores.positions.refreshRequests.value.count).toBe(1);
    refuse();
    await editor.remove('ETH/USDT');
    expect(server.count('DELETE /positions/ETHUSDT/protection')).toBe(0);
  });
});
