import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeError } from '../exchange-error';
import {
  applyEvent,
  emptyAccount,
  STARTING_BALANCE,
  type LedgerEvent,
  type PaperAccountState,
} from './account';
import { buildBrackets, filtersFor } from './filters';
import {
  isLiquidated,
  liquidationPrice,
  liquidationPriceAt,
  maintenanceMargin,
  roe,
  unrealizedPnl,
} from './math';
import { checkLeverage, planMarketOrder, type FillConditions } from './orders';

const d = (v: Decimal.Value) => new Decimal(v);
const btc = filtersFor('BTCUSDT', 60_000)!;
const noSlip = (price: Decimal.Value): FillConditions => ({
  markPrice: d(price),
  slippageBps: 0,
  takerFeeRate: d('0.0005'),
});

function funded(amount: Decimal.Value = STARTING_BALANCE): PaperAccountState {
  return applyEvent(emptyAccount(), { type: 'deposit', amount: d(amount).toString(), reason: 'initial' })
    .state;
}

function fillAndApply(
  state: PaperAccountState,
  symbol: string,
  side: 'BUY' | 'SELL',
  usdt: Decimal.Value,
  price: Decimal.Value,
) {
  const fill = planMarketOrder(
    state,
    {
      orderId: `o${Math.random()}`,
      clientOrderId: `o${Math.random()}`,
      symbol,
      side,
      size: { kind: 'quote', amount: d(usdt) },
      reduceOnly: false,
    },
    noSlip(price),
  );
  return { fill, ...applyEvent(state, fill) };
}

function refusal(fn: () => unknown): { code: number; msg: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ExchangeError) return { code: err.code, msg: err.msg };
    throw err;
  }
  throw new Error('expected an ExchangeError');
}

describe('Binance formulas', () => {
  it('reproduces the worked example: 1 BTC long at 60 000, 10x (WB 6 000, MMR 0.4 %, cum 0) → ≈ 54 216.87', () => {
    const lp = liquidationPriceAt(d(1), d(60_000), d(6_000), d('0.004'), d(0));
    expect(lp.toDecimalPlaces(2).toNumber()).toBe(54216.87);
  });

  it('takes the bracket from the position notional: 60 000 USDT of BTC is in the 0.5 % / 50 bracket', () => {
    // (60000 − 6000 − 50) / (1 − 0.005)
    expect(liquidationPrice(d(1), d(60_000), d(6_000), btc).toDecimalPlaces(2).toNumber()).toBe(54221.11);
    // A 0.5 BTC position (30 000 USDT) stays in the first bracket: (30000 − 3000) / (0.5 × 0.996)
    expect(liquidationPrice(d('0.5'), d(60_000), d(3_000), btc).toDecimalPlaces(2).toNumber()).toBe(54216.87);
  });

  it('derives the maintenance amounts of the BTC brackets (0, 50, 950, 11 450)', () => {
    expect(btc.brackets.slice(0, 4).map((b) => b.cum.toNumber())).toEqual([0, 50, 950, 11450]);
    expect(btc.brackets.slice(0, 4).map((b) => b.maxLeverage)).toEqual([125, 100, 75, 50]);
    expect(
      buildBrackets([
        [100, 10, 0.01],
        [200, 5, 0.02],
      ])[1]?.cum.toNumber(),
    ).toBe(1);
  });

  it('computes a short liquidation price above the entry', () => {
    // (1·60000 + 6000 + 50) / (1·1.005)
    const lp = liquidationPrice(d(-1), d(60_000), d(6_000), btc);
    expect(lp.toDecimalPlaces(2).toNumber()).toBe(65721.39);
    expect(isLiquidated(d(-1), d(65_800), lp)).toBe(true);
    expect(isLiquidated(d(-1), d(65_000), lp)).toBe(false);
  });

  it('uses the bracket of the notional for maintenance margin', () => {
    expect(maintenanceMargin(d(40_000), btc).toNumber()).toBe(160); // 0.4 %
    expect(maintenanceMargin(d(100_000), btc).toNumber()).toBe(450); // 0.5 % − 50
  });

  it('computes unrealised PnL and ROE with signed size', () => {
    expect(unrealizedPnl(d(-2), d(100), d(90)).toNumber()).toBe(20);
    expect(roe(d(1), d(100), d(110), 10).toDecimalPlaces(4).toNumber()).toBe(0.9091);
  });
});

describe('market orders on the paper exchange', () => {
  it('turns a USDT total into a quantity by the lot step and charges the taker fee', () => {
    const { fill, state, effects } = fillAndApply(funded(), 'BTCUSDT', 'BUY', 5_000, 60_000);
    expect(fill.qty).toBe('0.083');
    expect(fill.price).toBe('60000');
    expect(fill.fee).toBe('2.49'); // 0.083 × 60 000 × 0.05 %
    const position = state.positions.get('BTCUSDT')!;
    expect(position.isolatedWallet.toNumber()).toBe(498); // 4 980 / 10x
    expect(state.cash.toNumber()).toBe(10_000 - 498 - 2.49);
    expect(effects.fee.toNumber()).toBe(2.49);
  });

  it('applies slippage against the taker, rounded to the tick', () => {
    const fill = planMarketOrder(
      funded(),
      {
        orderId: 'o1',
        clientOrderId: 'o1',
        symbol: 'BTCUSDT',
        side: 'BUY',
        size: { kind: 'quote', amount: d(1_000) },
        reduceOnly: false,
      },
      { markPrice: d(60_000), slippageBps: 2, takerFeeRate: d('0.0005') },
    );
    expect(fill.price).toBe('60012');
  });

  it("refuses an order under the symbol's minimum notional with Binance's -4164, naming the minimum", () => {
    expect(refusal(() => fillAndApply(funded(), 'BTCUSDT', 'BUY', 10, 60_000))).toEqual({
      code: -4164,
      msg:
        'The minimum order for BTC/USDT is 100 USDT. At this price that buys 0.002 BTC ≈ 120.00 USDT ' +
        '(BTC trades in steps of 0.001 BTC ≈ 60.00 USDT).',
    });
  });

  it("refuses an order the wallet cannot margin with Binance's -2019", () => {
    expect(refusal(() => fillAndApply(funded(), 'BTCUSDT', 'BUY', 150_000, 60_000))).toEqual({
      code: -2019,
      msg: 'Margin is insufficient: your free margin pays for at most 99,502.49 USDT of BTC/USDT, not 150,000 USDT.',
    });
  });

  it('refuses an unknown symbol with -1121', () => {
    expect(refusal(() => fillAndApply(funded(), 'NOPEUSDT', 'BUY', 100, 1)).code).toBe(-1121);
  });

  it('averages the entry when adding to a position', () => {
    let s = fillAndApply(funded(), 'ETHUSDT', 'BUY', 2_000, 2_000).state;
    s = fillAndApply(s, 'ETHUSDT', 'BUY', 3_000, 3_000).state;
    const p = s.positions.get('ETHUSDT')!;
    expect(p.size.toNumber()).toBe(2);
    expect(p.entryPrice.toNumber()).toBe(2_500);
  });

  it('reduces with an opposite order, realising PnL and releasing margin pro rata', () => {
    let s = fillAndApply(funded(), 'ETHUSDT', 'BUY', 4_000, 2_000).state; // 2 ETH, margin 400
    const r = fillAndApply(s, 'ETHUSDT', 'SELL', 2_200, 2_200); // sells 1 ETH
    s = r.state;
    expect(r.effects.realizedPnl.toNumber()).toBe(200);
    const p = s.positions.get('ETHUSDT')!;
    expect(p.size.toNumber()).toBe(1);
    expect(p.isolatedWallet.toNumber()).toBe(200);
    expect(p.entryPrice.toNumber()).toBe(2_000);
  });

  it('flips a position when the opposite order is larger', () => {
    let s = fillAndApply(funded(), 'ETHUSDT', 'BUY', 2_000, 2_000).state; // +1
    s = fillAndApply(s, 'ETHUSDT', 'SELL', 6_000, 2_000).state; // −3 → −2
    const p = s.positions.get('ETHUSDT')!;
    expect(p.size.toNumber()).toBe(-2);
    expect(p.entryPrice.toNumber()).toBe(2_000);
    expect(p.isolatedWallet.toNumber()).toBe(400);
  });

  it('closes exactly with a reduce-only quantity order, and refuses reduce-only without a position', () => {
    const s = fillAndApply(funded(), 'SOLUSDT', 'BUY', 1_000, 100).state;
    const close = planMarketOrder(
      s,
      {
        orderId: 'c',
        clientOrderId: 'c',
        symbol: 'SOLUSDT',
        side: 'SELL',
        size: { kind: 'quantity', qty: d(10) },
        reduceOnly: true,
      },
      noSlip(110),
    );
    const after = applyEvent(s, close);
    expect(after.state.positions.has('SOLUSDT')).toBe(false);
    expect(after.effects.realizedPnl.toNumber()).toBe(100);
    expect(
      refusal(() =>
        planMarketOrder(
          funded(),
          {
            orderId: 'x',
            clientOrderId: 'x',
            symbol: 'SOLUSDT',
            side: 'SELL',
            size: { kind: 'quantity', qty: d(1) },
            reduceOnly: true,
          },
          noSlip(100),
        ),
      ).code,
    ).toBe(-2022);
  });

  it('liquidates by taking the whole isolated wallet', () => {
    const s = fillAndApply(funded(), 'BTCUSDT', 'BUY', 6_000, 60_000).state; // 0.1 BTC, margin 600
    const cashBefore = s.cash;
    const r = applyEvent(s, { type: 'liquidation', symbol: 'BTCUSDT', price: '54300' });
    expect(r.state.positions.size).toBe(0);
    expect(r.effects.realizedPnl.toNumber()).toBe(-600);
    expect(r.state.cash.equals(cashBefore)).toBe(true);
  });

  it('limits leverage to 1 … the first bracket maximum', () => {
    expect(() => checkLeverage('BTCUSDT', 125)).not.toThrow();
    expect(refusal(() => checkLeverage('BTCUSDT', 126)).code).toBe(-4028);
    expect(refusal(() => checkLeverage('BTCUSDT', 0)).code).toBe(-4028);
    expect(refusal(() => checkLeverage('1000PEPEUSDT', 75)).code).toBe(-4028);
  });

  it('refuses a position larger than the leverage allows with -2027', () => {
    let s = funded(1_000_000);
    s = applyEvent(s, { type: 'leverage', symbol: 'BTCUSDT', leverage: 125 }).state;
    // 125x is only allowed below 50 000 USDT of notional.
    expect(refusal(() => fillAndApply(s, 'BTCUSDT', 'BUY', 60_000, 60_000)).code).toBe(-2027);
  });
});

describe('the ledger', () => {
  /**
   * Equal to 1e-20 USDT: a margin is a notional divided by the leverage, rounded at the engine's 40
   * significant digits, so sums taken in another order may differ in their last digits; a cent is 1e-2.
   */
  const expectSameMoney = (actual: Decimal, expected: Decimal) =>
    expect(
      actual.minus(expected).abs().toNumber(),
      `${actual.toString()} vs ${expected.toString()}`,
    ).toBeLessThan(1e-20);
  /** Wallet balance: the cash not allotted plus every position's isolated wallet. */
  const wallet = (s: PaperAccountState) =>
    [...s.positions.values()].reduce((sum, p) => sum.plus(p.isolatedWallet), s.cash);

  // The wallet against PnL counted apart from the engine, and a rebuild against the live exchange, are in
  // tests/integration/paper-conservation.test.ts; this checks the effects stored beside each event.
  it('stores effects that add up: the wallet is deposits + realised PnL − fees, cash and margin move by their deltas', () => {
    const action = fc.record({
      symbol: fc.constantFrom('BTCUSDT', 'ETHUSDT', 'SOLUSDT'),
      side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
      usdt: fc.integer({ min: 50, max: 4_000 }),
      move: fc.double({ min: 0.9, max: 1.1, noNaN: true }),
      kind: fc.constantFrom('order', 'order', 'order', 'leverage', 'liquidate', 'reset'),
      leverage: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), (actions) => {
        const prices: Record<string, number> = { BTCUSDT: 60_000, ETHUSDT: 3_000, SOLUSDT: 150 };
        let live = applyEvent(emptyAccount(), { type: 'deposit', amount: '10000', reason: 'initial' }).state;
        // Counted from the events themselves, apart from the engine's cash and margin arithmetic.
        let deposited = d(10_000);
        let realised = d(0);
        let fees = d(0);
        for (const [n, a] of actions.entries()) {
          prices[a.symbol] = (prices[a.symbol] ?? 1) * a.move;
          let event: LedgerEvent | undefined;
          if (a.kind === 'order') {
            try {
              event = planMarketOrder(
                live,
                {
                  orderId: `o${n}`,
                  clientOrderId: `c${n}`,
                  symbol: a.symbol,
                  side: a.side,
                  size: { kind: 'quote', amount: d(a.usdt) },
                  reduceOnly: false,
                },
                { markPrice: d(prices[a.symbol] ?? 1), slippageBps: 2, takerFeeRate: d('0.0005') },
              );
            } catch (err) {
              if (!(err instanceof ExchangeError)) throw err;
            }
          } else if (a.kind === 'leverage' && !live.positions.has(a.symbol)) {
            event = { type: 'leverage', symbol: a.symbol, leverage: a.leverage };
          } else if (a.kind === 'liquidate' && live.positions.has(a.symbol)) {
            event = { type: 'liquidation', symbol: a.symbol, price: String(prices[a.symbol]) };
          } else if (a.kind === 'reset') {
            event = { type: 'deposit', amount: '10000', reason: 'reset' };
          }
          if (!event) continue;
          const before = live;
          const { state, effects } = applyEvent(live, event);
          live = state;
          if (event.type === 'deposit' && event.reason === 'reset') {
            // A reset starts the account over: what came before no longer counts.
            [deposited, realised, fees] = [d(event.amount), d(0), d(0)];
          } else if (event.type === 'deposit') {
            deposited = deposited.plus(event.amount);
          }
          if (event.type === 'fill') fees = fees.plus(event.fee);
          realised = realised.plus(effects.realizedPnl);

          expectSameMoney(wallet(live), deposited.plus(realised).minus(fees));
          expectSameMoney(effects.cashDelta, live.cash.minus(before.cash));
          expectSameMoney(
            effects.marginDelta,
            wallet(live).minus(live.cash).minus(wallet(before).minus(before.cash)),
          );
          expect(live.cash.lt(0)).toBe(false);
        }
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});

describe('the liquidation price kept per position', () => {
  it('is the one worked out afresh, and a changed position gets its own', async () => {
    const { liquidationPriceOf } = await import('./projections');
    const opened = fillAndApply(funded(), 'BTCUSDT', 'BUY', 1_000, 60_000).state;
    const first = opened.positions.get('BTCUSDT')!;
    const lp = liquidationPriceOf(first, btc);
    expect(lp.eq(liquidationPrice(first.size, first.entryPrice, first.isolatedWallet, btc))).toBe(true);
    expect(liquidationPriceOf(first, btc)).toBe(lp);
    // Adding at a higher price moves the entry, so the liquidation price moves with it.
    const added = fillAndApply(opened, 'BTCUSDT', 'BUY', 1_000, 66_000).state.positions.get('BTCUSDT')!;
    const again = liquidationPriceOf(added, btc);
    expect(again.eq(liquidationPrice(added.size, added.entryPrice, added.isolatedWallet, btc))).toBe(true);
    expect(again.eq(lp)).toBe(false);
  });
});
