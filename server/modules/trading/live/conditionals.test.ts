import { describe, expect, it } from 'vitest';
import { VenueUnreachable } from '../../exchanges/binance-client';
import { ExchangeError, OrderOutcomeUnknown, VenueAnswerUnreadable } from '../exchange-error';
import { LiveConditionals, algoParams, type SignedCall } from './conditionals';

/** Binance's answer for a close-position stop, with fields the adapter does not read. */
const stopRow = {
  algoId: 2148719,
  clientAlgoId: 'pt-stop',
  algoType: 'CONDITIONAL',
  orderType: 'STOP_MARKET',
  symbol: 'BTCUSDT',
  side: 'SELL',
  positionSide: 'BOTH',
  timeInForce: 'GTE_GTC',
  quantity: '0.000',
  algoStatus: 'NEW',
  actualOrderId: '',
  triggerPrice: '58000.00',
  price: '0.00',
  icebergQuantity: null,
  workingType: 'MARK_PRICE',
  closePosition: true,
  priceProtect: true,
  reduceOnly: true,
  createTime: 1750514941540,
  updateTime: 1750514941540,
  triggerTime: 0,
  goodTillDate: 0,
};

/** A venue whose every call answers `answer(method, path, params)`; the calls it saw. */
function venue(answer: (method: string, path: string, params: Record<string, string>) => unknown) {
  const calls: string[] = [];
  const call: SignedCall = (_account, method, path, params) => {
    calls.push(`${method} ${path} ${new URLSearchParams(params).toString()}`);
    try {
      return Promise.resolve(answer(method, path, params));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return { conditionals: new LiveConditionals(call, () => 42), calls };
}

describe('conditional orders on the live adapter', () => {
  it('reads a close-position stop: no quantity of its own, no fill yet, numeric ids as text', async () => {
    const { conditionals } = venue(() => stopRow);
    expect(await conditionals.query('a', 'pt-stop')).toEqual({
      algoId: '2148719',
      clientAlgoId: 'pt-stop',
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_MARKET',
      status: 'NEW',
      triggerPrice: '58000.00',
      quantity: null,
      closePosition: true,
      callbackRate: null,
      activatePrice: null,
      actualOrderId: null,
      updateTime: 1750514941540,
    });
  });

  it('reads a trailing stop that fired, with its callback, activation and market order', async () => {
    const { conditionals } = venue(() => ({
      ...stopRow,
      orderType: 'TRAILING_STOP_MARKET',
      closePosition: false,
      quantity: '0.010',
      triggerPrice: '0',
      callbackRate: '1.5',
      activatePrice: '61000',
      algoStatus: 'FINISHED',
      actualOrderId: 4000000001,
    }));
    expect(await conditionals.query('a', 'pt-trail')).toMatchObject({
      type: 'TRAILING_STOP_MARKET',
      triggerPrice: null,
      quantity: '0.010',
      callbackRate: '1.5',
      activatePrice: '61000',
      actualOrderId: '4000000001',
      status: 'FINISHED',
    });
  });

  it('a stop answered without its trigger price cannot be read', async () => {
    const { conditionals } = venue(() => ({ ...stopRow, triggerPrice: '' }));
    const err = await conditionals.query('a', 'pt-stop').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueAnswerUnreadable);
    expect((err as VenueAnswerUnreadable).fields).toEqual(['triggerPrice not valid']);
  });

  it('is null on -2013 only; another refusal or no answer to a look-up is raised as it is', async () => {
    expect(
      await venue(() => {
        throw new ExchangeError(-2013, 'Order does not exist.');
      }).conditionals.query('a', 'x'),
    ).toBeNull();
    const refused = venue(() => {
      throw new ExchangeError(-1021, 'Timestamp for this request is outside of the recvWindow.');
    });
    await expect(refused.conditionals.query('a', 'x')).rejects.toMatchObject({ code: -1021 });
    const silent = venue(() => {
      throw new VenueUnreachable('GET /fapi/v1/algoOrder: no answer from Binance.');
    });
    await expect(silent.conditionals.query('a', 'x')).rejects.toBeInstanceOf(VenueUnreachable);
  });

  it('a placement without a clear answer is an unknown outcome; a refusal keeps Binance’s code', async () => {
    const request = {
      symbol: 'BTCUSDT',
      side: 'SELL' as const,
      type: 'STOP_MARKET' as const,
      triggerPrice: '58000',
      clientAlgoId: 'pt-stop',
    };
    for (const thrown of [
      new VenueUnreachable('POST /fapi/v1/algoOrder: Binance answered 503.', -1006, 'bus'),
      new ExchangeError(-1007, 'Timeout waiting for response from backend server.'),
    ]) {
      const err = await venue(() => {
        throw thrown;
      })
        .conditionals.place('a', request)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OrderOutcomeUnknown);
    }
    const refused = venue(() => {
      throw new ExchangeError(-2021, 'Order would immediately trigger.');
    });
    await expect(refused.conditionals.place('a', request)).rejects.toMatchObject({ code: -2021 });
  });

  it('cancels only what rests: one call to look, one to cancel; nothing sent for one that fired', async () => {
    const resting = venue((method) =>
      method === 'GET' ? stopRow : { algoId: 2148719, clientAlgoId: 'pt-stop' },
    );
    expect(await resting.conditionals.cancel('a', 'pt-stop')).toMatchObject({
      status: 'CANCELED',
      updateTime: 42,
    });
    expect(resting.calls).toEqual([
      'GET /fapi/v1/algoOrder clientAlgoId=pt-stop',
      'DELETE /fapi/v1/algoOrder clientAlgoId=pt-stop',
    ]);
    const fired = venue(() => ({ ...stopRow, algoStatus: 'TRIGGERED' }));
    expect(await fired.conditionals.cancel('a', 'pt-stop')).toBeNull();
    expect(fired.calls).toHaveLength(1);
  });

  it('lists the open ones of the types the adapter holds, from a list or a wrapped list', async () => {
    const limitStop = { ...stopRow, orderType: 'STOP', clientAlgoId: 'by-hand', price: '57000' };
    for (const body of [[stopRow, limitStop], { orders: [stopRow, limitStop] }]) {
      const { conditionals, calls } = venue(() => body);
      expect((await conditionals.open('a', 'BTCUSDT')).map((o) => o.clientAlgoId)).toEqual(['pt-stop']);
      expect(calls).toEqual(['GET /fapi/v1/openAlgoOrders symbol=BTCUSDT']);
    }
  });

  it('refuses to build a request that cannot be one of the three', () => {
    const base = { symbol: 'BTCUSDT', side: 'SELL' as const, clientAlgoId: 'x' };
    expect(() => algoParams({ ...base, type: 'STOP_MARKET' })).toThrow(/trigger price/);
    expect(() =>
      algoParams({ ...base, type: 'TAKE_PROFIT_MARKET', triggerPrice: '1', quantity: '1' }),
    ).toThrow(/no quantity/);
    expect(() => algoParams({ ...base, type: 'TRAILING_STOP_MARKET', quantity: '1' })).toThrow(/callback/);
  });
});
