import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BinanceClient,
  VenueRateLimited,
  type BinanceCredentials,
} from '../../server/modules/exchanges/binance-client';
import type {
  ConditionalOrderRequest,
  ExchangeEvent,
  ConditionalUpdateEvent,
} from '../../server/modules/trading/exchange';
import {
  ExchangeError,
  OrderOutcomeUnknown,
  VenueAnswerUnreadable,
} from '../../server/modules/trading/exchange-error';
import { BinanceUsdmExchange } from '../../server/modules/trading/live/binance-usdm';
import {
  ALGO_ERRORS,
  BINANCE_ERRORS,
  startSignedDouble,
  without,
  type SignedDouble,
} from '../fixtures/binance-signed-double';

const KEY: BinanceCredentials = { apiKey: 'AlgoKey0123456789abcdef', secret: 'algo-secret-0123456789abcd' };
const ACCOUNT = 'ann:key-1';
const TIMEOUT_MS = 500;

/** Polls `read` until it gives something (loopback I/O only). */
async function until<T>(read: () => T | undefined | false, what: string, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`never saw: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The error a promise rejects with (the test fails when it resolves). */
async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('it was not refused');
}

const stop = (triggerPrice: string, clientAlgoId = 'pt-stop'): ConditionalOrderRequest => ({
  symbol: 'BTCUSDT',
  side: 'SELL',
  type: 'STOP_MARKET',
  triggerPrice,
  closePosition: true,
  clientAlgoId,
});
const target = (triggerPrice: string, clientAlgoId = 'pt-target'): ConditionalOrderRequest => ({
  ...stop(triggerPrice, clientAlgoId),
  type: 'TAKE_PROFIT_MARKET',
});
const trailing = (
  callbackRate: string,
  extra: Partial<ConditionalOrderRequest> = {},
): ConditionalOrderRequest => ({
  symbol: 'BTCUSDT',
  side: 'SELL',
  type: 'TRAILING_STOP_MARKET',
  quantity: '0.010',
  callbackRate,
  clientAlgoId: 'pt-trail',
  ...extra,
});

/**
 * The live adapter's conditional orders against the signed Binance double: the algo endpoints'
 * parameters and checks, answers that say nothing clear, and a mark path that fires what rests.
 */
describe('live conditional orders on the Binance algo service', () => {
  let binance: SignedDouble;
  let client: BinanceClient;
  let venue: BinanceUsdmExchange;
  let problems: { reason: string; dropped?: string }[];

  beforeEach(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY });
    client = new BinanceClient({ baseUrl: binance.url, timeoutMs: TIMEOUT_MS });
    problems = [];
    venue = new BinanceUsdmExchange({
      client,
      credentials: () => Promise.resolve(KEY),
      userStream: {
        urlTemplate: `${binance.url.replace('http://', 'ws://')}/private/ws?listenKey={listenKey}`,
        onProblem: (p) => problems.push(p),
      },
    });
  });
  afterEach(async () => {
    await venue.stopStreams();
    await binance.close();
  });

  const lastSent = (route: string) => {
    const sent = binance.requests.filter((r) => r.startsWith(`${route}?`)).at(-1);
    if (sent === undefined) throw new Error(`nothing sent to ${route}`);
    return new URLSearchParams(sent.split('?')[1]);
  };
  const placedAlgos = () => binance.algoOrders.length;

  /** Opens the account's user-data stream; the events its subscriber receives. */
  const watched = async () => {
    const events: ExchangeEvent[] = [];
    venue.subscribe(ACCOUNT, (e) => events.push(e));
    venue.watch(ACCOUNT);
    await until(() => binance.streams.connections(KEY.apiKey) === 1, 'the user-data stream');
    return events;
  };
  const algoUpdates = (events: ExchangeEvent[]) =>
    events.filter((e): e is ConditionalUpdateEvent => e.e === 'ALGO_UPDATE');

  it('places a stop, a target and a trailing stop with the algo service’s parameters, lists, looks up and cancels them', async () => {
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.010');

    const placedStop = await venue.placeConditional(ACCOUNT, stop('58000'));
    expect(placedStop).toEqual({
      algoId: expect.stringMatching(/^\d+$/) as unknown,
      clientAlgoId: 'pt-stop',
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_MARKET',
      status: 'NEW',
      triggerPrice: '58000',
      quantity: null,
      closePosition: true,
      callbackRate: null,
      activatePrice: null,
      actualOrderId: null,
      updateTime: expect.any(Number) as unknown,
    });
    const stopSent = lastSent('POST /fapi/v1/algoOrder');
    expect(
      Object.fromEntries([...stopSent].filter(([k]) => !['timestamp', 'signature'].includes(k))),
    ).toEqual({
      algoType: 'CONDITIONAL',
      symbol: 'BTCUSDT',
      side: 'SELL',
      positionSide: 'BOTH',
      type: 'STOP_MARKET',
      workingType: 'MARK_PRICE',
      clientAlgoId: 'pt-stop',
      triggerPrice: '58000',
      closePosition: 'true',
      priceProtect: 'true',
      recvWindow: '5000',
    });

    const placedTarget = await venue.placeConditional(ACCOUNT, target('63000'));
    expect(placedTarget).toMatchObject({ type: 'TAKE_PROFIT_MARKET', triggerPrice: '63000', quantity: null });
    expect(lastSent('POST /fapi/v1/algoOrder').get('closePosition')).toBe('true');

    const placedTrail = await venue.placeConditional(ACCOUNT, trailing('1.5', { activatePrice: '61000' }));
    expect(placedTrail).toMatchObject({
      type: 'TRAILING_STOP_MARKET',
      quantity: '0.010',
      closePosition: false,
      callbackRate: '1.5',
      activatePrice: '61000',
      triggerPrice: null,
    });
    const trailSent = lastSent('POST /fapi/v1/algoOrder');
    expect(trailSent.get('reduceOnly')).toBe('true');
    expect(trailSent.get('quantity')).toBe('0.010');
    expect(trailSent.get('workingType')).toBe('MARK_PRICE');
    expect(trailSent.has('closePosition')).toBe(false);
    expect(trailSent.has('priceProtect')).toBe(false);

    const ids = (list: { clientAlgoId: string }[]) => list.map((o) => o.clientAlgoId);
    expect(ids(await venue.openConditionals(ACCOUNT, 'BTCUSDT'))).toEqual([
      'pt-stop',
      'pt-target',
      'pt-trail',
    ]);
    expect(ids(await venue.openConditionals(ACCOUNT))).toEqual(['pt-stop', 'pt-target', 'pt-trail']);
    expect(await venue.openConditionals(ACCOUNT, 'ETHUSDT')).toEqual([]);
    expect(lastSent('GET /fapi/v1/openAlgoOrders').get('symbol')).toBe('ETHUSDT');

    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-target')).toEqual(placedTarget);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-trail')).toMatchObject({
      callbackRate: '1.5',
      status: 'NEW',
    });
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'never-placed')).toBeNull();

    const cancelled = await venue.cancelConditional(ACCOUNT, 'BTCUSDT', 'pt-stop');
    expect(cancelled).toMatchObject({
      clientAlgoId: 'pt-stop',
      status: 'CANCELED',
      algoId: placedStop.algoId,
    });
    expect(lastSent('DELETE /fapi/v1/algoOrder').get('clientAlgoId')).toBe('pt-stop');
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({ status: 'CANCELED' });
    expect(ids(await venue.openConditionals(ACCOUNT, 'BTCUSDT'))).toEqual(['pt-target', 'pt-trail']);
    // Gone already, or never there: nothing open by that id.
    expect(await venue.cancelConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toBeNull();
    expect(await venue.cancelConditional(ACCOUNT, 'BTCUSDT', 'never-placed')).toBeNull();
    // The client id is free again once its order no longer rests.
    expect(await venue.placeConditional(ACCOUNT, stop('57000'))).toMatchObject({ status: 'NEW' });
  });

  it('refuses conditional types on the order endpoint with -4120', async () => {
    for (const type of ['STOP_MARKET', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET']) {
      const err = await refusal(
        client.signed(
          'POST',
          '/fapi/v1/order',
          { symbol: 'BTCUSDT', side: 'SELL', type, stopPrice: '58000', closePosition: 'true' },
          KEY,
        ),
      );
      expect(err).toBeInstanceOf(ExchangeError);
      expect(err).toMatchObject({
        code: -4120,
        msg: 'Order type not supported for this endpoint. Please use the Algo Order API endpoints instead.',
      });
    }
    expect(binance.orders).toEqual([]);
  });

  it('refuses with -2021 a trigger the mark has already passed, and places nothing', async () => {
    binance.setMark('BTCUSDT', 60_000);
    const wrongSide: ConditionalOrderRequest[] = [
      stop('60500'),
      stop('60000'),
      target('59500'),
      { ...stop('59500'), side: 'BUY' },
      { ...target('60500'), side: 'BUY' },
      trailing('1', { activatePrice: '59900' }),
      trailing('1', { side: 'BUY', activatePrice: '60100' }),
    ];
    for (const request of wrongSide) {
      const err = await refusal(venue.placeConditional(ACCOUNT, request));
      expect(err, JSON.stringify(request)).toBeInstanceOf(ExchangeError);
      expect(err).toMatchObject({ code: -2021, msg: 'Order would immediately trigger.' });
    }
    expect(placedAlgos()).toBe(0);
    // The right sides are taken.
    await venue.placeConditional(ACCOUNT, stop('59500', 'a'));
    await venue.placeConditional(ACCOUNT, target('60500', 'b'));
    await venue.placeConditional(ACCOUNT, { ...stop('60500', 'c'), side: 'BUY' });
    await venue.placeConditional(ACCOUNT, trailing('1', { clientAlgoId: 'd', activatePrice: '60100' }));
    expect(placedAlgos()).toBe(4);
  });

  it('refuses a callback rate outside 0.1–10, a trigger off the tick, and closePosition with a quantity or reduce-only', async () => {
    for (const rate of ['0.09', '10.1', '0']) {
      const err = await refusal(venue.placeConditional(ACCOUNT, trailing(rate)));
      expect(err, rate).toMatchObject({
        code: ALGO_ERRORS.callbackRate.code,
        msg: ALGO_ERRORS.callbackRate.msg,
      });
    }
    await venue.placeConditional(ACCOUNT, trailing('0.1', { clientAlgoId: 'low' }));
    await venue.placeConditional(ACCOUNT, trailing('10', { clientAlgoId: 'high' }));
    expect(await refusal(venue.placeConditional(ACCOUNT, stop('58000.05')))).toMatchObject({ code: -4014 });

    // The adapter never sends these; Binance refuses them.
    const raw = (extra: Record<string, string>) =>
      refusal(
        client.signed(
          'POST',
          '/fapi/v1/algoOrder',
          {
            algoType: 'CONDITIONAL',
            symbol: 'BTCUSDT',
            side: 'SELL',
            type: 'STOP_MARKET',
            triggerPrice: '58000',
            closePosition: 'true',
            ...extra,
          },
          KEY,
        ),
      );
    expect(await raw({ quantity: '0.010' })).toMatchObject({ code: -4137 });
    expect(await raw({ reduceOnly: 'true' })).toMatchObject({
      code: -1106,
      msg: "Parameter 'reduceOnly' sent when not required.",
    });
    expect(placedAlgos()).toBe(2);
  });

  it('thirty placements of one client id at once: one rests, the others are refused -4116; thirty cancels of it: one cancels', async () => {
    const placements = await Promise.allSettled(
      Array.from({ length: 30 }, () => venue.placeConditional(ACCOUNT, stop('58000', 'only-one'))),
    );
    expect(placements.filter((p) => p.status === 'fulfilled')).toHaveLength(1);
    const refused = placements.filter((p) => p.status === 'rejected').map((p) => p.reason as unknown);
    expect(refused).toHaveLength(29);
    for (const err of refused) expect(err).toMatchObject({ code: -4116 });
    expect(await venue.openConditionals(ACCOUNT)).toHaveLength(1);

    const cancels = await Promise.all(
      Array.from({ length: 30 }, () => venue.cancelConditional(ACCOUNT, 'BTCUSDT', 'only-one')),
    );
    expect(cancels.filter((c) => c?.status === 'CANCELED')).toHaveLength(1);
    expect(cancels.filter((c) => c === null)).toHaveLength(29);
    expect(await venue.openConditionals(ACCOUNT)).toEqual([]);
  });

  it('a placement answered without a field it needs is an unknown outcome, and the look-up finds the order', async () => {
    binance.fault({ route: 'POST /fapi/v1/algoOrder', reshape: without('algoStatus') });
    const err = await refusal(venue.placeConditional(ACCOUNT, stop('58000')));
    expect(err).toBeInstanceOf(OrderOutcomeUnknown);
    expect((err as OrderOutcomeUnknown).reason).toMatch(/algoStatus missing/);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({ status: 'NEW' });

    // Reads that cannot be read say which field, and change nothing.
    binance.fault({ route: 'GET /fapi/v1/algoOrder', reshape: without('clientAlgoId') });
    const query = await refusal(venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop'));
    expect(query).toBeInstanceOf(VenueAnswerUnreadable);
    expect((query as VenueAnswerUnreadable).fields).toEqual(['clientAlgoId missing']);
    binance.fault({ route: 'GET /fapi/v1/openAlgoOrders', reshape: without('triggerPrice') });
    const list = await refusal(venue.openConditionals(ACCOUNT));
    expect(list).toBeInstanceOf(VenueAnswerUnreadable);
    expect((list as VenueAnswerUnreadable).fields).toEqual(['triggerPrice missing']);
    binance.fault({ route: 'GET /fapi/v1/openAlgoOrders', reshape: without('orderType') });
    expect(await refusal(venue.openConditionals(ACCOUNT))).toBeInstanceOf(VenueAnswerUnreadable);

    // A cancel answered unreadably may have happened: unknown, and the look-up says it did.
    binance.fault({ route: 'DELETE /fapi/v1/algoOrder', reshape: without('algoId') });
    expect(await refusal(venue.cancelConditional(ACCOUNT, 'BTCUSDT', 'pt-stop'))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({ status: 'CANCELED' });
  });

  it('a 5xx or no answer to a placement is an unknown outcome, and the look-up finds the order it placed', async () => {
    binance.fault({ route: 'POST /fapi/v1/algoOrder', afterFill: true, error: BINANCE_ERRORS.messageBus });
    const err = await refusal(venue.placeConditional(ACCOUNT, stop('58000', 'after-503')));
    expect(err).toBeInstanceOf(OrderOutcomeUnknown);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'after-503')).toMatchObject({
      status: 'NEW',
      triggerPrice: '58000',
    });

    binance.fault({ route: 'POST /fapi/v1/algoOrder', afterFill: true, delayMs: TIMEOUT_MS * 3 });
    expect(await refusal(venue.placeConditional(ACCOUNT, target('63000', 'no-answer')))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'no-answer')).toMatchObject({ status: 'NEW' });

    // -1007 without a 5xx says the same.
    binance.fault({
      route: 'POST /fapi/v1/algoOrder',
      error: { ...BINANCE_ERRORS.backendTimeout, status: 400 },
    });
    expect(await refusal(venue.placeConditional(ACCOUNT, stop('57000', 'after-1007')))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    // It placed nothing: only -2013 says so.
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'after-1007')).toBeNull();
  });

  it('refuses the next placements with the code a test asks for, then places again', async () => {
    binance.refuseAlgoPlacements(BINANCE_ERRORS.margin, 2);
    for (const id of ['r1', 'r2']) {
      expect(await refusal(venue.placeConditional(ACCOUNT, stop('58000', id)))).toMatchObject({
        code: -2019,
      });
    }
    expect(placedAlgos()).toBe(0);
    expect(await venue.placeConditional(ACCOUNT, stop('58000', 'r3'))).toMatchObject({ status: 'NEW' });
  });

  it('a mark path that crosses the stop fires it: the position ends closed, the sibling target expires, and the subscriber hears it all', async () => {
    const events = await watched();
    binance.setMark('BTCUSDT', 60_000);
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.010');
    await venue.placeConditional(ACCOUNT, stop('59000'));
    await venue.placeConditional(ACCOUNT, target('62000'));

    expect(binance.setMark('BTCUSDT', 59_500)).toEqual([]);
    expect(binance.setMark('BTCUSDT', 61_900)).toEqual([]);
    const fired = binance.setMark('BTCUSDT', 58_900);
    expect(fired.map((o) => o.clientAlgoId)).toEqual(['pt-stop']);

    const close = binance.orders.at(-1);
    expect(close).toMatchObject({ side: 'SELL', quantity: '0.010', reduceOnly: true, price: '58900' });
    expect(await venue.positionRisk(ACCOUNT, true)).toEqual([]);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({
      status: 'FINISHED',
      actualOrderId: String(close?.orderId),
    });
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-target')).toMatchObject({
      status: 'EXPIRED',
    });
    expect(await venue.openConditionals(ACCOUNT)).toEqual([]);

    await until(() => algoUpdates(events).length >= 6, 'every ALGO_UPDATE');
    expect(algoUpdates(events).map((e) => `${e.order.clientAlgoId} ${e.order.status}`)).toEqual([
      'pt-stop NEW',
      'pt-target NEW',
      'pt-stop TRIGGERING',
      'pt-stop TRIGGERED',
      'pt-stop FINISHED',
      'pt-target EXPIRED',
    ]);
    const finished = algoUpdates(events).find((e) => e.order.status === 'FINISHED');
    expect(finished?.order).toMatchObject({
      type: 'STOP_MARKET',
      triggerPrice: '59000',
      closePosition: true,
      quantity: null,
      actualOrderId: String(close?.orderId),
    });
    expect(events.some((e) => e.e === 'ORDER_TRADE_UPDATE' && String(e.o.i) === String(close?.orderId))).toBe(
      true,
    );
    expect(
      events.some((e) => e.e === 'ACCOUNT_UPDATE' && e.a.P.some((p) => p.s === 'BTCUSDT' && p.pa === '0')),
    ).toBe(true);
    expect(problems.filter((p) => p.dropped !== undefined)).toEqual([]);
  });

  it('a trailing stop arms at its activation price, follows the best mark and fires on the callback', async () => {
    binance.setMark('BTCUSDT', 60_000);
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.010');
    await venue.placeConditional(ACCOUNT, trailing('1', { activatePrice: '61000' }));
    // 1% below 60 000 is no trigger before it arms.
    expect(binance.setMark('BTCUSDT', 59_300)).toEqual([]);
    expect(binance.setMark('BTCUSDT', 61_000)).toEqual([]);
    expect(binance.setMark('BTCUSDT', 62_000)).toEqual([]);
    // 61 400 gives back less than 1% of 62 000; 61 380 gives back 1%.
    expect(binance.setMark('BTCUSDT', 61_400)).toEqual([]);
    expect(binance.setMark('BTCUSDT', 61_380).map((o) => o.clientAlgoId)).toEqual(['pt-trail']);
    expect(binance.orders.at(-1)).toMatchObject({ side: 'SELL', quantity: '0.010', reduceOnly: true });
    expect(await venue.positionRisk(ACCOUNT, true)).toEqual([]);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-trail')).toMatchObject({
      status: 'FINISHED',
    });
  });

  it('a stop firing with no position left to close is REJECTED, and says why', async () => {
    const events = await watched();
    binance.setMark('BTCUSDT', 60_000);
    await venue.placeConditional(ACCOUNT, stop('59000'));
    binance.setMark('BTCUSDT', 58_000);
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({
      status: 'REJECTED',
      actualOrderId: null,
    });
    const rejected = await until(
      () => algoUpdates(events).find((e) => e.order.status === 'REJECTED'),
      'the REJECTED update',
    );
    expect(rejected.reason).toBe('Reduce Only reject');
    expect(binance.orders).toEqual([]);
  });

  it('an order cancelled by hand on Binance reaches the subscriber as CANCELED; an unreadable ALGO_UPDATE is dropped with a word', async () => {
    const events = await watched();
    await venue.placeConditional(ACCOUNT, stop('58000'));
    binance.cancelAlgoByHand(KEY.apiKey, 'pt-stop');
    await until(() => algoUpdates(events).some((e) => e.order.status === 'CANCELED'), 'the CANCELED update');
    expect(await venue.queryConditional(ACCOUNT, 'BTCUSDT', 'pt-stop')).toMatchObject({ status: 'CANCELED' });
    expect(() => binance.cancelAlgoByHand(KEY.apiKey, 'pt-stop')).toThrow(/no open conditional order/);

    const before = algoUpdates(events).length;
    binance.streams.push(KEY.apiKey, { e: 'ALGO_UPDATE', E: Date.now(), o: { caid: 'x', o: 'STOP_MARKET' } });
    // A type the app does not hold is no problem: it is left out quietly.
    binance.streams.push(KEY.apiKey, { e: 'ALGO_UPDATE', E: Date.now(), o: { caid: 'y', o: 'STOP' } });
    binance.placeAlgoByHand(KEY.apiKey, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'TAKE_PROFIT_MARKET',
      triggerPrice: '65000',
      closePosition: 'true',
      clientAlgoId: 'by-hand',
    });
    await until(() => algoUpdates(events).length > before, 'the next ALGO_UPDATE');
    expect(
      algoUpdates(events)
        .slice(before)
        .map((e) => e.order.clientAlgoId),
    ).toEqual(['by-hand']);
    expect(problems.filter((p) => p.dropped === 'ALGO_UPDATE')).toHaveLength(1);
    expect(problems.find((p) => p.dropped === 'ALGO_UPDATE')?.reason).toMatch(/aid missing/);
    expect(binance.streams.connections(KEY.apiKey)).toBe(1);
  });

  it('fails the next reduce-only orders before filling, as a test asks (5xx, no answer, 429), and no other order', async () => {
    binance.trade(KEY.apiKey, 'BTCUSDT', 'BUY', '0.010');
    const filled = binance.orders.length;
    binance.failReduceOrders({ kind: 'server-error' });
    binance.failReduceOrders({ kind: 'timeout' });
    binance.failReduceOrders({ kind: 'rate-limited', retryAfterSeconds: 7 });

    // An order that opens is not one of them.
    await venue.placeMarketOrder(ACCOUNT, {
      symbol: 'ETHUSDT',
      side: 'BUY',
      quoteAmount: '300',
      newClientOrderId: 'opens-eth',
    });
    expect(binance.orders.length).toBe(filled + 1);

    expect(await refusal(venue.closePosition(ACCOUNT, 'BTCUSDT', 'close-1'))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(await refusal(venue.closePosition(ACCOUNT, 'BTCUSDT', 'close-2'))).toBeInstanceOf(
      OrderOutcomeUnknown,
    );
    expect(binance.orders.length).toBe(filled + 1);
    expect(await venue.queryOrder(ACCOUNT, 'close-1', 'BTCUSDT')).toBeNull();
    expect(await venue.queryOrder(ACCOUNT, 'close-2', 'BTCUSDT')).toBeNull();
    expect((await venue.positionRisk(ACCOUNT, true)).map((p) => [p.symbol, p.positionAmt])).toEqual([
      ['BTCUSDT', '0.01'],
      ['ETHUSDT', '0.1'],
    ]);
    // Last: the client then holds this key's calls for Retry-After.
    const limited = await refusal(venue.closePosition(ACCOUNT, 'BTCUSDT', 'close-3'));
    expect(limited).toBeInstanceOf(VenueRateLimited);
    expect(limited).toMatchObject({ status: 429, retryAfterSeconds: 7 });
    expect(binance.orders.length).toBe(filled + 1);
  });
});
