import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { OrderRow, PositionRow } from './answers';
import { authMessage } from './stream';
import {
  grossPnlOf,
  legOf,
  legStatusOf,
  linkIdOf,
  orderStatusOf,
  positionRiskOf,
  trailingDistance,
} from './shapes';

const row = (over: Record<string, unknown>) =>
  OrderRow.parse({
    orderId: 'fd4300ae-7847-404e-b947-b46980a4d140',
    orderLinkId: '',
    symbol: 'BTCUSDT',
    side: 'Sell',
    orderType: 'Market',
    orderStatus: 'Untriggered',
    cancelType: 'UNKNOWN',
    qty: '0.010',
    cumExecQty: '0',
    cumExecValue: '0',
    avgPrice: '',
    stopOrderType: 'StopLoss',
    triggerPrice: '59000.00',
    tpslMode: 'Full',
    createdTime: '1684738540559',
    updatedTime: '1684738540561',
    ...over,
  });

describe('Bybit shapes', () => {
  it('keeps a client id that is a valid orderLinkId, and maps any other to the same 36 characters each time', () => {
    expect(linkIdOf('sc-0123456789abcdef0123456789abcdef')).toBe('sc-0123456789abcdef0123456789abcdef');
    expect(linkIdOf('pp-12-sl-1')).toBe('pp-12-sl-1');
    const mapped = linkIdOf('rule:7/close.1');
    expect(mapped).toMatch(/^m-[A-Za-z0-9_-]{34}$/);
    expect(linkIdOf('rule:7/close.1')).toBe(mapped);
    expect(linkIdOf('rule:7/close.2')).not.toBe(mapped);
    expect(linkIdOf('x'.repeat(37))).toHaveLength(36);
  });

  it("reads an order's state in Binance's words (a market IOC cut short is EXPIRED)", () => {
    const s = (orderStatus: string, cancelType = 'UNKNOWN') =>
      orderStatusOf(row({ orderStatus, cancelType, stopOrderType: '' }));
    expect([s('New'), s('PartiallyFilled'), s('Filled'), s('Rejected'), s('Untriggered')]).toEqual([
      'NEW',
      'PARTIALLY_FILLED',
      'FILLED',
      'REJECTED',
      'NEW',
    ]);
    expect(s('Cancelled')).toBe('EXPIRED');
    expect(s('Cancelled', 'CancelByUser')).toBe('CANCELED');
    expect(s('Deactivated')).toBe('CANCELED');
  });

  it("reads a position's leg: resting, fired, cleared with its position, cancelled", () => {
    expect(legOf(row({}), 'pp-1-sl-1')).toMatchObject({
      type: 'STOP_MARKET',
      status: 'NEW',
      side: 'SELL',
      triggerPrice: '59000.00',
      closePosition: true,
      clientAlgoId: 'pp-1-sl-1',
      actualOrderId: null,
    });
    const filled = legOf(row({ orderStatus: 'Filled', cumExecQty: '0.010' }), '');
    expect(filled).toMatchObject({
      status: 'FINISHED',
      actualOrderId: 'fd4300ae-7847-404e-b947-b46980a4d140',
    });
    expect(legStatusOf(row({ orderStatus: 'Deactivated', cancelType: 'CancelByTpSlTsClear' }))).toBe(
      'EXPIRED',
    );
    expect(legStatusOf(row({ orderStatus: 'Deactivated', cancelType: 'CancelByUser' }))).toBe('CANCELED');
    expect(legStatusOf(row({ orderStatus: 'Triggered' }))).toBe('TRIGGERED');
    // A trailing stop's triggerPrice is its activation price on Bybit.
    expect(legOf(row({ stopOrderType: 'TrailingStop', triggerPrice: '61000' }), '')).toMatchObject({
      type: 'TRAILING_STOP_MARKET',
      triggerPrice: null,
      activatePrice: '61000',
    });
    expect(legOf(row({ stopOrderType: 'UNKNOWN' }), '')).toBeNull();
  });

  it("turns a callback rate into Bybit's trailing distance on the tick, at least one tick", () => {
    expect(trailingDistance('1', '60000', new Decimal('0.10'))).toBe('600');
    expect(trailingDistance('0.1', '3000.37', new Decimal('0.01'))).toBe('3');
    expect(trailingDistance('0.1', '0.5', new Decimal('0.01'))).toBe('0.01');
  });

  it("gives the gross PnL of a close from Bybit's closed-PnL record (the documented sample: a long closed lower)", () => {
    expect(grossPnlOf({ side: 'Sell', cumEntryValue: '3584.9255', cumExitValue: '3541.795' })).toBe(
      '-43.1305',
    );
    expect(grossPnlOf({ side: 'Buy', cumEntryValue: '3000', cumExitValue: '2900' })).toBe('100');
  });

  it("reads a short as a negative amount in Binance's one-way row", () => {
    const short = PositionRow.parse({
      symbol: 'ETHUSDT',
      side: 'Sell',
      size: '0.5',
      avgPrice: '3000',
      markPrice: '2900',
      unrealisedPnl: '50',
      liqPrice: '',
      leverage: '10',
      positionIM: '145',
      positionMM: '7.25',
      positionValue: '1500',
      updatedTime: '1697682317038',
    });
    expect(positionRiskOf(short)).toMatchObject({
      positionAmt: '-0.5',
      notional: '-1450',
      liquidationPrice: '0',
      isolatedMargin: '195',
      leverage: 10,
      marginType: 'cross',
      breakEvenPrice: '3000',
    });
  });

  it('authenticates the private stream with HMAC(secret, "GET/realtime" + expires)', () => {
    const msg = JSON.parse(
      authMessage({ apiKey: 'api_key', secret: 'test-secret-0123' }, 1662350400000),
    ) as unknown;
    // The signature from openssl for the documented example's expires.
    expect(msg).toEqual({
      op: 'auth',
      args: ['api_key', 1662350400000, '90d69f58a8ec21ea792d841a9e30a4220794588b9bf67c45a3a5f16a587bc333'],
    });
  });
});
