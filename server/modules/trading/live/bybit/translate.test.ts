import { describe, expect, it } from 'vitest';
import { BybitStreamFees, translatePush } from './translate';

/** The `execution` push of Bybit's documentation (a linear market sell that closed 0.5 BTC). */
const EXECUTION = {
  category: 'linear',
  symbol: 'BTCUSDT',
  closedSize: '0.5',
  execFee: '26.3725275',
  execId: '0ab1bdf7-4219-438b-b30a-32ec863018f7',
  execPrice: '95900.1',
  execQty: '0.5',
  execType: 'Trade',
  execValue: '47950.05',
  feeRate: '0.00055',
  leavesQty: '0',
  orderId: '9aac161b-8ed6-450d-9cab-c5cc67c21784',
  orderLinkId: '',
  orderPrice: '94942.5',
  orderQty: '0.5',
  orderType: 'Market',
  stopOrderType: 'UNKNOWN',
  side: 'Sell',
  execTime: '1746270400353',
  isLeverage: '0',
  isMaker: false,
  seq: 140612148849382,
  execPnl: '0.05',
  createType: 'CreateByUser',
  feeCurrency: 'USDT',
};

describe("the private stream in Binance's event shapes", () => {
  it('a linear fill is ORDER_TRADE_UPDATE with its fee and gross PnL; a funding row or a spot fill is not', () => {
    const out = translatePush(
      'execution',
      [EXECUTION, { ...EXECUTION, execType: 'Funding' }, { ...EXECUTION, category: 'spot' }],
      1746270400355,
    );
    expect(out.events).toEqual([
      {
        e: 'ORDER_TRADE_UPDATE',
        E: 1746270400355,
        T: 1746270400353,
        o: {
          s: 'BTCUSDT',
          c: '',
          S: 'SELL',
          o: 'MARKET',
          q: '0.5',
          ap: '95900.1',
          x: 'TRADE',
          X: 'FILLED',
          i: '9aac161b-8ed6-450d-9cab-c5cc67c21784',
          l: '0.5',
          z: '0.5',
          L: '95900.1',
          n: '26.3725275',
          N: 'USDT',
          rp: '0.05',
          R: true,
        },
      },
    ]);
    expect(out.fills).toHaveLength(1);
  });

  it('position rows are one ACCOUNT_UPDATE, a short negative; a leg of the order topic is ALGO_UPDATE', () => {
    const pos = translatePush(
      'position',
      [
        {
          category: 'linear',
          symbol: 'BTCUSDT',
          side: 'Sell',
          size: '0.02',
          entryPrice: '60000',
          unrealisedPnl: '-3',
          positionIM: '120',
        },
        { category: 'linear', symbol: 'ETHUSDT', side: '', size: '0', entryPrice: '0' },
      ],
      5,
    );
    expect(pos.events[0]).toMatchObject({
      e: 'ACCOUNT_UPDATE',
      a: {
        m: 'ORDER',
        P: [
          { s: 'BTCUSDT', pa: '-0.02', ep: '60000', up: '-3' },
          { s: 'ETHUSDT', pa: '0' },
        ],
      },
    });
    const leg = {
      category: 'linear',
      orderId: 'leg-1',
      orderLinkId: '',
      symbol: 'BTCUSDT',
      side: 'Buy',
      orderType: 'Market',
      orderStatus: 'Filled',
      qty: '0.02',
      cumExecQty: '0.02',
      stopOrderType: 'TakeProfit',
      triggerPrice: '58000',
      tpslMode: 'Full',
      createdTime: '1',
      updatedTime: '2',
    };
    const orders = translatePush('order', [leg, { ...leg, stopOrderType: '' }], 5);
    expect(orders.events).toEqual([
      expect.objectContaining({
        e: 'ALGO_UPDATE',
        order: expect.objectContaining({
          type: 'TAKE_PROFIT_MARKET',
          status: 'FINISHED',
          clientAlgoId: '',
          side: 'BUY',
        }),
      }),
    ]);
  });

  it('a row that cannot be read is dropped and named, the others still told', () => {
    const out = translatePush('execution', [{ ...EXECUTION, execQty: 'lots' }, EXECUTION], 1);
    expect(out.dropped).toEqual(['execution']);
    expect(out.events).toHaveLength(1);
  });

  it("sums an order's streamed fills into its fee and PnL once they cover what it executed", () => {
    const fees = new BybitStreamFees(() => 0);
    const fill = translatePush('execution', [{ ...EXECUTION, execQty: '0.2', execFee: '1', execPnl: '2' }], 0)
      .fills[0];
    if (fill === undefined) throw new Error('no fill');
    fees.add('a', fill);
    expect(fees.of('a', fill.orderId, '0.5')).toBeNull();
    fees.add('a', { ...fill, execQty: '0.3', execFee: '1.5', execPnl: '-1' });
    expect(fees.of('a', fill.orderId, '0.5')).toEqual({ commission: '2.5', realizedPnl: '1' });
    expect(fees.of('b', fill.orderId, '0.5')).toBeNull();
    fees.add('a', { ...fill, orderId: 'other', execPnl: null });
    expect(fees.of('a', 'other', '0.2')).toBeNull();
  });
});
