import Decimal from 'decimal.js';
import type { ExchangeEvent } from '../exchange';
import type { PaperAccountState } from './account';
import type { AccountStore } from './account-store';
import { filtersFor } from './filters';
import { isLiquidated, liquidationPrice } from './math';
import { liquidationPriceOf } from './projections';
import { accountUpdate, orderTradeUpdate } from './paper-events';

export interface LiquidationsDeps {
  store: AccountStore;
  /** The mark a position is checked at. */
  markPrice: (symbol: string) => number | undefined;
  /** The mark as the account's update reports it. */
  mark: (symbol: string) => Decimal;
  now: () => number;
  emit: (account: string, event: ExchangeEvent) => void;
  /** Tells what the liquidation did to the account's conditional orders (those on its symbol end). */
  announce: (
    account: string,
    before: PaperAccountState['conditionals'],
    after: PaperAccountState['conditionals'],
  ) => void;
  onLiquidation?: (account: string, symbol: string, price: string) => void;
}

/**
 * Liquidation of paper positions: on each price tick, every loaded position whose mark has crossed its
 * liquidation price is closed at that price, its isolated margin lost, within the account's own turn.
 */
export class Liquidations {
  constructor(private readonly d: LiquidationsDeps) {}

  /**
   * Checks every loaded position in `symbols` against its liquidation price at the current mark, and
   * liquidates those the mark has crossed.
   */
  async check(symbols: ReadonlySet<string>): Promise<void> {
    const checks: Promise<unknown>[] = [];
    for (const [account, loading] of this.d.store.loaded()) {
      checks.push(
        loading.then(({ state }) => {
          for (const p of state.positions.values()) {
            if (!symbols.has(p.symbol)) continue;
            const markPrice = this.d.markPrice(p.symbol);
            if (markPrice === undefined) continue;
            const filters = filtersFor(p.symbol, markPrice);
            if (!filters) continue;
            const lp = liquidationPriceOf(p, filters);
            if (isLiquidated(p.size, new Decimal(markPrice), lp)) {
              return this.d.store.serial(account, () => this.liquidateLocked(account, p.symbol));
            }
          }
          return undefined;
        }),
      );
    }
    await Promise.allSettled(checks);
  }

  /** Within the account's turn: looks again (the mark may have moved back), then liquidates. */
  private async liquidateLocked(account: string, symbol: string): Promise<void> {
    const { state } = await this.d.store.load(account);
    const position = state.positions.get(symbol);
    const markPrice = this.d.markPrice(symbol);
    if (!position || markPrice === undefined) return;
    const filters = filtersFor(symbol, markPrice);
    if (!filters) return;
    const lp = liquidationPrice(position.size, position.entryPrice, position.isolatedWallet, filters);
    if (!isLiquidated(position.size, new Decimal(markPrice), lp)) return;
    const price = lp.toDecimalPlaces(8).toString();
    const at = this.d.now();
    const conditional = state.conditionals.resting.size > 0 ? { at } : {};
    const { before, after } = await this.d.store.commit(account, {
      type: 'liquidation',
      symbol,
      price,
      ...conditional,
    });
    this.d.emit(account, orderTradeUpdate(position, price, position.isolatedWallet.neg().toString(), at));
    this.d.emit(
      account,
      accountUpdate('LIQUIDATION', after, at, (s) => this.d.mark(s)),
    );
    this.d.announce(account, before.conditionals, after.conditionals);
    this.d.onLiquidation?.(account, symbol, price);
  }
}
