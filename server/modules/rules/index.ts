import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { BacktestRequest } from '../../../src/contracts/rules';
import { every, systemClock, type Disposer } from '../market/clock';
import { RiskService } from './risk.service';
import { backtest } from './rules.backtest';
import { RuleEngine } from './rules.engine';
import { ExitWatcher } from './rules.exits';
import { RulesRepo } from './rules.repo';
import { registerRulesRoutes } from './rules.routes';
import { gapReport, promotionReport } from './rules.reports';
import { RulesService } from './rules.service';

declare module 'fastify' {
  interface FastifyInstance {
    rules: { service: RulesService; risk: RiskService; engine: RuleEngine; exits: ExitWatcher };
  }
}

const BACKTEST_SIGNALS = 20_000;

/**
 * The rules module: rules and their API, the risk envelope (whose maximum order size every order passes),
 * the engine that turns completed signals into orders, and the exits of the positions rules opened.
 */
export default fp(
  async function rulesModule(app: FastifyInstance) {
    const log = app.log.child({ module: 'rules' });
    const clock = systemClock;
    const origin = randomUUID();
    const repo = new RulesRepo(app.database.db);
    const risk = new RiskService(
      repo,
      clock,
      (userId) => void app.bus.publish('rules.changed', { userId, origin }).catch(() => undefined),
    );
    // Exits and a decision's price act only on a young price: an older one is no price at all.
    const priceOf = (symbol: string) => app.prices.last(symbol);

    const engine = new RuleEngine({
      repo,
      risk,
      plans: app.plans,
      signals: app.news,
      trading: {
        placeOrder: (userId, request, key, opts) => app.trading.placeOrder(userId, request, key, opts),
        findOrder: (userId, key) => app.trading.findOrder(userId, key),
        openPositions: (userId, account) => app.trading.openPositionCount(userId, account),
        venueOf: (userId, account) => app.trading.venueOf(userId, account),
        paperTwin: (userId, request) => app.trading.paperTwin(userId, request),
      },
      priceOf,
      clock,
      log,
      unknownRecheckMs: app.config.BINANCE_ORDER_SETTLE_MS,
    });
    const exits = new ExitWatcher({
      repo,
      clock,
      priceOf,
      reduce: (d) =>
        app.trading.reducePosition(
          d.userId,
          d.account,
          {
            symbol: d.symbol,
            opened: d.side,
            quantity: Number(d.quantity),
            // One exit order per decision: a retry finds it by this id instead of closing twice.
            clientOrderId: `sc-exit-${d.id}`,
          },
          { source: 'rule', ruleId: d.ruleId, ruleName: d.ruleName },
        ),
      log,
    });
    /**
     * Closes at once every position rules opened on a retracted signal (reduce-only, on the decision's
     * account, its own quantity) unless its rule keeps them, and cancels decisions not sent yet.
     */
    const unwindRetracted = async (retractedId: string, retractionId: string) => {
      const signalId = Number(retractedId);
      const why = `closed: retracted by #${retractionId}`;
      await repo.cancelUnsent(
        signalId,
        `The story was retracted by #${retractionId} before the order was sent.`,
      );
      const open = await repo.openOnSignal(signalId);
      await Promise.all(
        open.filter((d) => d.exitPlan?.on_retraction !== 'keep').map((d) => exits.close(d, why)),
      );
    };
    const changed = (userId: string) => {
      // Only the process running the engine keeps rules in memory; the others hear of it on the bus.
      if (running.length > 0) void engine.reload();
      void app.bus.publish('rules.changed', { userId, origin }).catch(() => undefined);
    };
    const service = new RulesService(repo, app.plans, () => changed(''));

    const wake = (sweep = false) => {
      void engine
        .pump({ sweep })
        .then(() => exits.reload())
        .catch((err: unknown) => log.warn({ err }, 'rule engine run failed'));
    };
    // A completed signal is decided on the next turn of the event loop: what was queued in this one (the
    // signal stream's write of the same card) goes out first instead of waiting for the orders.
    let woken = false;
    const wakeSoon = () => {
      if (woken) return;
      woken = true;
      setImmediate(() => {
        woken = false;
        wake();
      });
    };
    // Every process guards the orders it places and hears rule changes; one runs the engine and exits.
    const removeGuard = app.trading.addGuard((userId, request) => risk.guardOrder(userId, request.amount));
    const disposers = [
      removeGuard,
      app.bus.subscribe('rules.changed', (event) => {
        if (event.origin === origin) return;
        risk.forget(event.userId);
        if (running.length > 0) void engine.reload();
      }),
    ];
    const running: Disposer[] = [];
    const releaseEngine = await app.leases.hold('rules', {
      async start() {
        await engine.start();
        await exits.reload();
        log.info({ rules: engine.ruleCount, exits: exits.count }, 'rule engine started');
        running.push(
          app.bus.subscribe('signal.published', ({ signal }) => {
            if (signal.analysis.status === 'completed') wakeSoon();
          }),
          // A story retracted (a denial, a correction, a hacked account): unwind what rules opened on it.
          app.bus.subscribe('signal.retracted', (event) =>
            unwindRetracted(event.retractedId, event.retractionId).catch((err: unknown) =>
              log.warn({ err, signal: event.retractedId }, 'retracted positions not unwound'),
            ),
          ),
          app.prices.onTicks((ticks) => {
            void exits
              .check(new Set(ticks.map((t) => t.s)))
              .catch((err: unknown) => log.warn({ err }, 'exits not checked'));
          }),
          // The safety net: late commits, missed wake-ups, max-hold exits and interrupted decisions.
          every(clock, 1000, () => {
            wake(true);
            void exits.check();
          }),
        );
      },
      // A decision under way finishes; its once-per-(rule, signal) key keeps the next holder from repeating it.
      stop() {
        for (const dispose of running.splice(0)) dispose();
        engine.stop();
      },
    });
    app.decorate('rules', { service, risk, engine, exits });

    const runBacktest = async (userId: string, ruleId: string, body: BacktestRequest) => {
      const rule = await service.get(userId, ruleId);
      const now = clock.now();
      const history = await app.news.history(
        new Date(now - body.days * 86_400_000),
        new Date(now),
        BACKTEST_SIGNALS,
      );
      return backtest({
        rule,
        days: body.days,
        holdMinutes: body.hold_minutes,
        now,
        signals: history.signals,
        since: history.since,
        candles: (symbol, interval, limit) => app.market.klines({ symbol, interval, limit }),
        priceSource: app.market.kind === 'sim' ? 'simulated prices' : 'Binance prices',
      });
    };

    registerRulesRoutes(app, {
      service,
      risk,
      backtest: runBacktest,
      venueOf: (userId, account) => app.trading.venueOf(userId, account),
      flatten: (userId) => exits.flatten(userId),
      async gap(userId, ruleId) {
        await service.get(userId, ruleId);
        return gapReport(ruleId, await repo.decisionsOfRule(userId, ruleId));
      },
      async promotion(userId, ruleId, account) {
        const rule = await service.get(userId, ruleId);
        const venue = await app.trading.venueOf(userId, account);
        const decisions = await repo.decisionsOfRule(userId, ruleId);
        const asset = rule.conditions.asset ?? decisions[0]?.asset ?? 'BTC';
        const [prices, tested, preview, limits] = await Promise.all([
          app.scorecardPrices(decisions.filter((d) => d.outcome === 'fired').map((d) => d.signalId)),
          runBacktest(userId, ruleId, { days: 30, hold_minutes: rule.action.exit?.max_hold_minutes ?? 30 }),
          app.trading
            .preview(
              userId,
              {
                symbol: `${asset}/USDT`,
                side: rule.action.side,
                type: 'market',
                amount: rule.action.amount_usd,
              },
              account,
            )
            .catch((err: unknown) => ({
              refused:
                err instanceof Error && 'detail' in err ? String(err.detail) : 'The venue did not answer.',
            })),
          risk.settings(userId),
        ]);
        return promotionReport({
          ruleId,
          account,
          venue,
          decisions,
          prices,
          backtest: tested,
          preview,
          risk: limits,
        });
      },
    });

    app.addHook('onClose', async () => {
      const ran = running.length > 0;
      await releaseEngine();
      for (const dispose of disposers) dispose();
      // Let a decision in flight finish; a database already gone is not an error on the way out.
      if (ran) await engine.pump().catch(() => undefined);
    });
  },
  { name: 'rules', dependencies: ['trading', 'plans', 'news', 'market', 'scorecard'] },
);
