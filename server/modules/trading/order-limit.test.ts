import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { OrderRequest } from '../../../src/contracts/trading';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { ExchangeAdapter } from './exchange';
import type { IdempotencyRepo } from './idempotency.repo';
import { LimitDesk } from './limit-desk';
import { limitOrderFor, onTick } from './order-limit';
import type { OrderSender } from './order-send';
import { systemClock } from '../market/clock';

const limit = (over: object) =>
  OrderRequest.parse({
    symbol: 'BTC/USDT',
    side: 'long',
    type: 'limit',
    price: 95_000,
    amount: 5_000,
    ...over,
  });

describe('limit order sizing', () => {
  it('puts the price on the tick: down for a buy, up for a sell', () => {
    const tick = new Decimal('0.1');
    expect(onTick(new Decimal('95000.07'), tick, 'BUY').toString()).toBe('95000');
    expect(onTick(new Decimal('95000.01'), tick, 'SELL').toString()).toBe('95000.1');
    expect(onTick(new Decimal('95000.1'), tick, 'SELL').toString()).toBe('95000.1');
  });

  it('sizes the USDT amount at the limit price, not the market', () => {
    const { order, sizing } = limitOrderFor('u', 'BTCUSDT', limit({ amount: 5_035 }), undefined);
    // 5 035 / 95 000 = 0.053 BTC.
    expect(order).toMatchObject({ price: '95000', quantity: '0.053', timeInForce: 'GTC', side: 'BUY' });
    expect(sizing.requested).toBe('5035');
    const post = limitOrderFor('u', 'BTCUSDT', limit({ side: 'short', timeInForce: 'POST' }), 'key-00001');
    expect(post.order).toMatchObject({ side: 'SELL', timeInForce: 'GTX' });
    expect(post.order.newClientOrderId).toMatch(/^sc-[0-9a-f]{32}$/);
  });

  it('checks the minimum order at the limit price', () => {
    expect(() => limitOrderFor('u', 'BTCUSDT', limit({ amount: 60 }), undefined)).toThrow(/minimum/i);
  });

  it('refuses protection on an order that has not filled', () => {
    expect(() =>
      limitOrderFor('u', 'BTCUSDT', limit({ protection: { stop_loss_pct: 2 } }), undefined),
    ).toThrow('Protection goes on a filled position');
  });
});

describe('limit orders on a venue without them', () => {
  it('answers a 400 that names the venue', async () => {
    const adapter = { kind: 'bybit-linear' } as unknown as ExchangeAdapter;
    const where: ResolvedAccount = {
      adapter,
      account: 'u:k',
      name: 'k',
      venue: 'bybit',
      mode: 'live',
      keyHint: 'ab…yz',
    };
    const desk = new LimitDesk({} as AccountResolver, {} as IdempotencyRepo, {} as OrderSender, systemClock);
    await expect(
      desk.place('u', where, 'BTCUSDT', limit({}), undefined, { source: 'manual' }),
    ).rejects.toMatchObject({
      status: 400,
      detail: expect.stringContaining('Limit orders are not available on Bybit yet') as string,
    });
  });
});
