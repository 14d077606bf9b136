import { rules } from '../db/schema';
import { systemClock } from '../modules/market/clock';
import { BOOK_REACH_MS, BOOK_RECENT_MS } from '../modules/rules/fired-book';
import { RiskService, startOfUtcDay } from '../modules/rules/risk.service';
import { firedUpdate } from '../modules/rules/rule-orders';
import { RulesRepo } from '../modules/rules/rules.repo';
import type { NewDecisionRow } from '../modules/rules/rules.types';
import { rehearseInRollback, type StatementRehearsal, scratchUser } from './statement-rehearsal';

/**
 * The ledger statements of a headline's rule decisions, rehearsed at start in a transaction that is
 * rolled back ({@link rehearseInRollback}): two scratch rules' decisions are claimed in one insert, the
 * user's counted decisions read for the engine's book of fired totals, the decisions checked by the
 * risk envelope (the settings, the day's totals), marked as sent and recorded as fired in one update
 * each, the shapes the engine sends for thirty, and then retracted.
 * Returns how long it took (ms).
 */
export const rehearseDecisionStatements: StatementRehearsal = (db, log) =>
  rehearseInRollback(
    db,
    async (tx) => {
      const userId = await scratchUser(tx);
      const made = await tx
        .insert(rules)
        .values(
          [0, 1].map((n) => ({ userId, name: `rehearsal ${n}`, side: 'long' as const, amountUsd: '200' })),
        )
        .returning({ id: rules.id, name: rules.name });
      const now = Date.now();
      const at = new Date(now);
      const repo = new RulesRepo(tx);
      const claimed = await repo.claimDecisions(
        made.map((rule): NewDecisionRow => ({
          userId,
          ruleId: rule.id,
          ruleName: rule.name,
          ruleVersion: 1,
          signalId: 0,
          asset: 'BTC',
          symbol: 'BTCUSDT',
          side: 'long',
          amountUsd: '200',
          outcome: 'pending',
          engine: 'rehearsal',
          sentiment: 'positive',
          impact: 50,
          price: '100000',
          arrivalPrice: '100000',
          account: 'paper',
          exitPlan: null,
          decidedAt: at,
          signalPublishedAt: null,
          signalReceivedAt: at,
          signalAnalysedAt: at,
        })),
      );
      await repo.countedDecisions(
        [userId],
        new Date(now - BOOK_REACH_MS),
        startOfUtcDay(now),
        new Date(now - BOOK_RECENT_MS),
      );
      // The risk envelope's reads: the user's settings, then the fired totals of the day.
      const risk = new RiskService(repo, systemClock);
      await Promise.all(
        [...claimed.values()].map((d) =>
          risk.checkAutomated(userId, {
            asset: d.asset,
            amountUsd: 200,
            receivedAt: now,
            mode: 'paper',
            decisionId: d.id,
            openPositions: async () => 0,
          }),
        ),
      );
      await risk.guardOrder(userId, 200);
      // Marked as on their way just before their orders go, then recorded as fired while still pending.
      await Promise.all([...claimed.values()].map((d) => repo.markSending(d.id, at)));
      const order = { id: 'rehearsal', price: 100_000, quantity: 0.002, fee: 0.1, note: null, timing: null };
      await Promise.all([...claimed.values()].map((d) => repo.settle(d.id, firedUpdate(order, 1, now, now))));
      // A retraction of their story: the decisions marked, the open positions found.
      await repo.retractDecisions(0, 0, 'rehearsal');
    },
    log,
  );
