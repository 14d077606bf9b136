import { IdempotencyRepo } from '../modules/trading/idempotency.repo';
import { applyEvent, emptyAccount, type LedgerEvent } from '../modules/trading/paper/account';
import { LedgerRepo } from '../modules/trading/paper/ledger.repo';
import { TradesRepo } from '../modules/trading/trades.repo';
import { rehearseInRollback, type StatementRehearsal, scratchUser } from './statement-rehearsal';

/**
 * The statements of a headline's orders, rehearsed at start in a transaction that is rolled back
 * ({@link rehearseInRollback}): an account's opening and a paper fill appended to the ledger in one
 * statement, the fill's Idempotency-Key taken with it; two keys taken and marked filled as a live
 * venue's orders take them; and the fills recorded in the trade history, each in one statement as
 * thirty orders of one headline are. Returns how long it took (ms).
 */
export const rehearseOrderStatements: StatementRehearsal = (db, log) =>
  rehearseInRollback(
    db,
    async (tx) => {
      const userId = await scratchUser(tx);
      const keys = new IdempotencyRepo(tx);
      const orders = ['rehearsal-0', 'rehearsal-1', 'rehearsal-2'];
      const live = orders.slice(1);
      await Promise.all(
        live.map((key) =>
          keys.claim(
            userId,
            key,
            { requestHash: key, clientOrderId: key, account: 'paper', symbol: 'BTCUSDT' },
            'sent',
          ),
        ),
      );
      await Promise.all(live.map((key) => keys.markFilled(userId, key, key)));

      const opening: LedgerEvent = { type: 'deposit', amount: '10000', reason: 'initial' };
      const fill: LedgerEvent = {
        type: 'fill',
        orderId: orders[0] as string,
        clientOrderId: orders[0] as string,
        reduceOnly: false,
        symbol: 'BTCUSDT',
        side: 'BUY',
        qty: '0.002',
        price: '100000',
        fee: '0.1',
      };
      const opened = applyEvent(emptyAccount(), opening);
      const filled = applyEvent(opened.state, fill);
      const ledger = new LedgerRepo(tx);
      await Promise.all([
        ledger.append(userId, 1, opening, opened.effects, opened.state.cash.toString()),
        ledger.append(userId, 2, fill, filled.effects, filled.state.cash.toString(), {
          userId,
          idempotencyKey: orders[0] as string,
          requestHash: 'rehearsal',
          account: 'paper',
        }),
      ]);

      const trades = new TradesRepo(tx);
      await Promise.all(
        orders.map((orderId) =>
          trades.record(userId, {
            account: 'paper',
            accountMode: 'paper',
            venue: 'paper',
            keyHint: null,
            orderId,
            symbol: 'BTCUSDT',
            side: 'buy',
            quantity: 0.002,
            price: 100_000,
            realizedPnl: 0,
            fee: 0.1,
            source: 'rule',
            ruleId: null,
            ruleName: 'rehearsal',
            reason: null,
          }),
        ),
      );
    },
    log,
  );
