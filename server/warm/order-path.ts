import Decimal from 'decimal.js';
import { applyEvent, emptyAccount, STARTING_BALANCE } from '../modules/trading/paper/account';
import { planOrder, quoteSize, sizingOf, type FillConditions } from '../modules/trading/paper/orders';
import { accountUpdate, orderTradeUpdate, toOrderResult } from '../modules/trading/paper/paper-events';
import { balanceOf, positionRiskAt } from '../modules/trading/paper/projections';

export interface RehearsalDeps {
  now: () => number;
  /** The price, slippage and taker fee a market order on the symbol fills at now (a fresh object). */
  conditions: (symbol: string) => FillConditions;
  /** The price positions are marked at, as the mark book has it. */
  markPrice: (symbol: string) => number | undefined;
  /** The mark as the account's update reports it; `fallback` when there is none. */
  mark: (symbol: string, fallback?: Decimal) => Decimal;
  takerFeeRate: Decimal;
}

/**
 * Runs the order path on a scratch account in memory, and drops what it gives: sizing and filling a
 * long and a short on each symbol, the events of the fills, and the positions and balance a socket
 * shows. Nothing is written, emitted or kept. Done at start: V8 optimises code once it has run, and
 * the first orders after a start paid for that. Returns how long it took, in ms.
 */
export function rehearseOrderPath(d: RehearsalDeps, symbols: readonly string[], rounds: number): number {
  const started = performance.now();
  const at = d.now();
  let state = applyEvent(emptyAccount(), {
    type: 'deposit',
    amount: STARTING_BALANCE.toString(),
    reason: 'initial',
  }).state;
  for (let round = 0; round < rounds; round++) {
    for (const symbol of symbols) {
      const conditions = d.conditions(symbol);
      // Before the first price of a symbol has come in: any price will do for a rehearsal.
      if (!conditions.markPrice.gt(0)) conditions.markPrice = new Decimal(100);
      for (const side of ['BUY', 'SELL'] as const) {
        let planned;
        try {
          planned = planOrder(
            state,
            {
              orderId: 'rehearsal',
              clientOrderId: 'rehearsal',
              symbol,
              side,
              size: quoteSize({ quoteAmount: '200' }),
              reduceOnly: false,
            },
            conditions,
          );
        } catch {
          continue; // a symbol whose minimum is above the amount
        }
        sizingOf(planned);
        const { state: after, effects } = applyEvent(state, planned.fill);
        toOrderResult(planned.fill, effects.realizedPnl.toString(), at);
        orderTradeUpdate(planned.fill, planned.fill.price, effects.realizedPnl.toString(), at);
        void accountUpdate('ORDER', after, at, (s) => d.mark(s)).a.P;
        for (const p of after.positions.values()) {
          positionRiskAt(p, d.markPrice(p.symbol), d.takerFeeRate, at);
        }
        balanceOf(after, (p) => d.mark(p.symbol, p.entryPrice), at);
        state = after;
      }
    }
  }
  return performance.now() - started;
}
