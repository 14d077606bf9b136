import Decimal from 'decimal.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { users } from '../../server/db/schema';
import type { OrderResult, OrderTradeUpdateEvent } from '../../server/modules/trading/exchange';
import { ExchangeError } from '../../server/modules/trading/exchange-error';
import { rebuild, STARTING_BALANCE } from '../../server/modules/trading/paper/account';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { balanceOf, positionRiskOf } from '../../server/modules/trading/paper/projections';
import { dbTargets, useDatabase } from '../helpers/db';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;
const START_PRICES: Record<string, number> = { BTCUSDT: 60_000, ETHUSDT: 3_000, SOLUSDT: 150 };
const TAKER_FEE = new Decimal('0.0005');
const NOW = Date.UTC(2026, 10, 27);
/** Ledger rows between snapshots: small, so that a rebuild starts from a snapshot in most runs. */
const SNAPSHOT_EVERY = 4;
/** The exchange prints money with 8 decimals (Binance's balance); its last digit is rounded. */
const PRINTED = new Decimal('1e-8');

const symbol = fc.constantFrom(...SYMBOLS);
const action = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      symbol,
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      usdt: fc.integer({ min: 50, max: 6_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), symbol }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('reduce' as const),
      symbol,
      percent: fc.integer({ min: 1, max: 100 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('leverage' as const),
      symbol,
      leverage: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(20, 25, 50)),
    }),
  },
  {
    // Moves of up to 12 %: enough to liquidate at 10x (the default) and above.
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      symbol,
      permille: fc.integer({ min: -120, max: 120 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

/**
 * What the wallet should hold, kept by this test from what the exchange reports, apart from its
 * arithmetic: a position is a signed size at an average entry, as Binance books it (one-way mode).
 */
class Expected {
  deposits = STARTING_BALANCE;
  realised = new Decimal(0);
  fees = new Decimal(0);
  readonly held = new Map<string, { size: Decimal; entry: Decimal }>();

  /** Wallet balance = deposits + realised PnL − fees. This engine books no funding. */
  wallet(): Decimal {
    return this.deposits.plus(this.realised).minus(this.fees);
  }

  /** Books a fill the exchange reported; answers the realised PnL it should have reported. */
  fill(result: OrderResult): { realised: Decimal; fee: Decimal } {
    const qty = new Decimal(result.executedQty);
    const price = new Decimal(result.avgPrice);
    const signed = result.side === 'BUY' ? qty : qty.neg();
    const fee = qty.mul(price).mul(TAKER_FEE);
    const position = this.held.get(result.symbol) ?? { size: new Decimal(0), entry: new Decimal(0) };
    let realised = new Decimal(0);
    let size = position.size;
    let entry = position.entry;
    if (!size.isZero() && size.isPositive() !== signed.isPositive()) {
      const closed = Decimal.min(size.abs(), qty);
      realised = closed.mul(price.minus(entry)).mul(size.isPositive() ? 1 : -1);
      size = size.plus(size.isPositive() ? closed.neg() : closed);
      const opened = qty.minus(closed);
      if (size.isZero() && opened.gt(0)) [size, entry] = [opened.mul(signed.isPositive() ? 1 : -1), price];
    } else {
      const total = size.abs().plus(qty);
      entry = size.abs().mul(entry).plus(qty.mul(price)).div(total);
      size = size.plus(signed);
    }
    if (size.isZero()) this.held.delete(result.symbol);
    else this.held.set(result.symbol, { size, entry });
    this.realised = this.realised.plus(realised);
    this.fees = this.fees.plus(fee);
    return { realised, fee };
  }

  /** An isolated position liquidated: its isolated wallet is lost, nothing else. */
  liquidated(symbol: string, isolatedWallet: Decimal): void {
    this.held.delete(symbol);
    this.realised = this.realised.minus(isolatedWallet);
  }

  reset(): void {
    this.deposits = STARTING_BALANCE;
    this.realised = new Decimal(0);
    this.fees = new Decimal(0);
    this.held.clear();
  }
}

const near = (actual: Decimal.Value, expected: Decimal.Value, within: Decimal, what: string) =>
  expect(
    new Decimal(actual).minus(expected).abs().lte(within),
    `${what}: ${new Decimal(actual).toString()} vs ${new Decimal(expected).toString()}`,
  ).toBe(true);

describe.each(dbTargets())('the paper exchange over random order sequences on %s', (name) => {
  const target = useDatabase(name);
  let database: Database;
  let accounts = 0;

  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
  });

  async function newUser(): Promise<string> {
    accounts += 1;
    const [row] = await database.db
      .insert(users)
      .values({ email: `prop${accounts}@example.com`, username: `prop${accounts}` })
      .returning({ id: users.id });
    return row!.id;
  }

  it('conserves the wallet (it moves only by realised PnL and fees), and a rebuild from the ledger is the live account', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40, size: 'max' }), async (actions) => {
        const user = await newUser();
        const marks = new Map(Object.entries(START_PRICES));
        const exchange = (snapshotEvery: number | null) =>
          new PaperExchange({
            repo: new LedgerRepo(database.db),
            marks: { price: (s) => marks.get(s) },
            now: () => NOW,
            snapshotEvery,
          });
        const live = exchange(SNAPSHOT_EVERY);
        const liquidations: OrderTradeUpdateEvent[] = [];
        live.subscribe(user, (event) => {
          if (event.e === 'ORDER_TRADE_UPDATE' && event.o.o === 'LIQUIDATION') liquidations.push(event);
        });
        const expected = new Expected();
        let orders = 0;
        const orderId = () => `prop-${++orders}`;

        const refusedOr = async <T>(run: () => Promise<T>): Promise<T | null> => {
          try {
            return await run();
          } catch (err) {
            if (err instanceof ExchangeError) return null;
            throw err;
          }
        };
        const booked = (result: OrderResult | null, a: Action) => {
          if (result === null) return;
          const { realised, fee } = expected.fill(result);
          // The paper exchange books its own fills: their fee and PnL are always known.
          expect(result.commission, `fee of ${a.kind} ${result.symbol} known`).not.toBeNull();
          expect(result.realizedPnl, `PnL of ${a.kind} ${result.symbol} known`).not.toBeNull();
          near(result.commission ?? '', fee, new Decimal(0), `fee of ${a.kind} ${result.symbol}`);
          near(result.realizedPnl ?? '', realised, PRINTED, `realised PnL of ${a.kind} ${result.symbol}`);
        };

        for (const a of actions) {
          switch (a.kind) {
            case 'order':
              booked(
                await refusedOr(() =>
                  live.placeMarketOrder(user, {
                    symbol: a.symbol,
                    side: a.side,
                    quoteAmount: String(a.usdt),
                    newClientOrderId: orderId(),
                  }),
                ),
                a,
              );
              break;
            case 'close': {
              const result = await live.closePosition(user, a.symbol, orderId());
              expect(result === null, `close of ${a.symbol}`).toBe(!expected.held.has(a.symbol));
              booked(result, a);
              break;
            }
            case 'reduce': {
              const position = expected.held.get(a.symbol);
              if (position === undefined) break;
              booked(
                await refusedOr(() =>
                  live.reducePosition(user, {
                    symbol: a.symbol,
                    opened: position.size.isPositive() ? 'BUY' : 'SELL',
                    quantity: position.size.abs().mul(a.percent).div(100).toString(),
                    clientOrderId: orderId(),
                  }),
                ),
                a,
              );
              break;
            }
            case 'leverage':
              await refusedOr(() => live.setLeverage(user, a.symbol, a.leverage));
              break;
            case 'move': {
              // The isolated wallet at stake, as positionRisk shows it before the move.
              const risk = (await live.positionRisk(user)).find((p) => p.symbol === a.symbol);
              const stake = risk && new Decimal(risk.isolatedMargin).minus(risk.unRealizedProfit);
              marks.set(a.symbol, (marks.get(a.symbol) ?? 1) * (1 + a.permille / 1_000));
              const before = liquidations.length;
              await live.checkLiquidations(new Set([a.symbol]));
              const liquidation = liquidations[before];
              if (liquidation !== undefined && stake !== undefined) {
                const rp = liquidation.o.rp;
                expect(rp, `liquidation PnL of ${a.symbol} known`).not.toBeNull();
                near(rp ?? '', stake.neg(), PRINTED.mul(2), `liquidation of ${a.symbol}`);
                expected.liquidated(a.symbol, new Decimal(rp ?? 0).neg());
              }
              break;
            }
            case 'reset':
              await live.reset(user);
              expected.reset();
              break;
          }

          const balance = await live.balance(user);
          near(balance.balance, expected.wallet(), PRINTED, `wallet after ${a.kind}`);
          expect(new Decimal(balance.availableBalance).isNegative(), 'free cash').toBe(false);
          const positions = await live.positionRisk(user);
          expect(positions.map((p) => [p.symbol, p.positionAmt]).sort()).toEqual(
            [...expected.held].map(([s, p]) => [s, p.size.toString()]).sort(),
          );
          // The risk envelope's count of open positions reads the state without the projection.
          expect(await live.openPositionCount(user)).toBe(expected.held.size);
          for (const p of positions) {
            near(p.entryPrice, expected.held.get(p.symbol)?.entry ?? 0, PRINTED, `entry of ${p.symbol}`);
          }
        }

        // Another process starts: from the whole ledger, and from its latest snapshot and what follows.
        const liveView = { positions: await live.positionRisk(user), balance: await live.balance(user) };
        for (const snapshotEvery of [null, SNAPSHOT_EVERY]) {
          const restarted = exchange(snapshotEvery);
          expect({
            positions: await restarted.positionRisk(user),
            balance: await restarted.balance(user),
          }).toEqual(liveView);
        }
        // And the ledger's events folded by hand, shown the way the exchange shows an account.
        const folded = rebuild((await new LedgerRepo(database.db).load(user)).map((row) => row.event));
        const mark = (s: string) => new Decimal(marks.get(s) ?? 0);
        expect({
          positions: [...folded.positions.values()].map((p) =>
            positionRiskOf(p, mark(p.symbol), TAKER_FEE, NOW),
          ),
          balance: balanceOf(folded, (p) => mark(p.symbol), NOW),
        }).toEqual(liveView);
      }),
      { numRuns: 40 },
    );
    // Forty accounts of up to forty operations, each written to the ledger: about 10 s on one idle core.
  }, 120_000);
});
