import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { every, systemClock, type Clock } from '../market/clock';
import { RiskService } from './risk.service';
import { backtestRunner } from './backtest-run';
import { RulesBus } from './bus-events';
import { EngineRunner } from './engine-runner';
import { RuleEngine } from './rule-engine';
import { closeLifeMs, exitOrigin, ExitWatcher } from './rule-exits';
import { exitPrices } from './exit-prices';
import { liveTriggersShown } from './live-triggers';
import { ReportsService } from './reports.service';
import { Retractions } from './retractions';
import { RulesRepo } from './rules.repo';
import { registerRulesRoutes } from './rules.routes';
import { RulesService } from './rules.service';
import { PlanBook } from './plan-book';
import { minimumOf } from './rule-minimum';
import { ruleOpenedSymbols, rulePositionCount } from './rule-positions';
import { userLocks } from '../../db/user-locks';
import { warmRules } from '../../warm';

declare module 'fastify' {
  interface FastifyInstance {
    rules: {
      service: RulesService;
      risk: RiskService;
      engine: RuleEngine;
      exits: ExitWatcher;
      /** Whether rules' take profit and stop loss on live and demo accounts act in the app now. */
      livePriceTriggers(): boolean;
    };
  }
}

/**
 * The rules module: rules and their API, the risk envelope (whose maximum order size every order passes),
 * the engine that turns completed signals into orders, and the exits of the positions rules opened.
 */
export default fp(
  async function rulesModule(app: FastifyInstance, opts: { clock?: Clock }) {
    const log = app.log.child({ module: 'rules' });
    // Injected by tests, which drive an ask rule's window with it.
    const clock = opts.clock ?? systemClock;
    const origin = randomUUID();
    const repo = new RulesRepo(app.database.db);
    await warmRules(app, log);
    const bus = new RulesBus({
      bus: app.bus,
      origin,
      news: app.news,
      log,
      track: (row) => exits.track(row),
      forget: (userId) => risk.forget(userId),
      reload: () => runner.reload(),
      apply: (change) => engine.book.apply(change),
    });
    const risk = new RiskService(
      repo,
      clock,
      (userId) => bus.riskChanged(userId),
      // The default maximum order is a share of the balance of the account the order goes to.
      (userId, account) => app.trading.walletBalance(userId, account),
    );
    // Exits and a decision's price act only on a young price: an older one is no price at all.
    const priceOf = (symbol: string) => app.prices.last(symbol);

    // A user's decision is checked and sent while no other of theirs is, on any process of the database.
    const locks = userLocks(app.database, app.config.REDIS_PREFIX, log);
    // The plans of the rules' owners, in memory for the premium sources' items.
    const premiumSources = new Set<string>(app.config.PREMIUM_NEWS_SOURCES);
    const plans = new PlanBook(
      (userId) => app.plans.planOf(userId),
      () => clock.now(),
      log,
    );
    const engine = new RuleEngine({
      repo,
      risk,
      plans: app.plans,
      locks,
      ...(premiumSources.size === 0 ? {} : { premium: { sources: premiumSources, plans } }),
      signals: app.news,
      trading: {
        placeOrder: (userId, request, key, opts) => app.trading.placeOrder(userId, request, key, opts),
        findOrder: (userId, key) => app.trading.findOrder(userId, key),
        // Only the positions rules opened count against "max positions (rules)", never the trader's own.
        openPositions: (userId, account) =>
          rulePositionCount(
            {
              opened: (u, a) => ruleOpenedSymbols(app.database.db, u, a),
              positions: (u, a) => app.trading.positions(u, a),
            },
            userId,
            account,
          ),
        venueOf: (userId, account) => app.trading.venueOf(userId, account),
        paperTwin: (userId, request) => app.trading.paperTwin(userId, request),
      },
      priceOf,
      clock,
      log,
      unknownRecheckMs: app.config.BINANCE_ORDER_SETTLE_MS,
      // Every decision event goes on the bus: notifications and the user's open tabs, on any process.
      decided: (event, row, news) => bus.decided(event, row, news),
      // A fill that landed on a story retracted while its order was on its way is closed at once.
      unwind: (d) => retractions.unwindOne(d),
    });
    // Paper positions are watched on the paper exchange's prices, a key's only on its venue's own.
    const prices = exitPrices(app.prices);
    const exits = new ExitWatcher({
      repo,
      clock,
      priceOf: prices.priceOf,
      triggersPaused: prices.paused,
      reduce: (d, clientOrderId) =>
        app.trading.reducePosition(
          d.userId,
          d.account,
          { symbol: d.symbol, opened: d.side, quantity: Number(d.quantity), clientOrderId },
          exitOrigin(d),
        ),
      find: (d, clientOrderId) =>
        app.trading.findReduce(d.userId, d.account, { symbol: d.symbol, clientOrderId }, exitOrigin(d)),
      log,
      exited: (d) => engine.exited(d),
      failing: (d) => engine.tell('exit_failing', d),
      // No close can still be under way after this: every venue call of it has timed out by then.
      staleMs: closeLifeMs(app.config.BINANCE_TIMEOUT_MS, app.config.BINANCE_ORDER_SETTLE_MS),
    });
    const retractions = new Retractions({ repo, exits, cancelled: (row) => engine.tell('skipped', row) });
    // Answers reach any process: the atomic update in the ledger lets the first one win.
    const service = new RulesService(
      repo,
      app.plans,
      () => bus.rulesChanged(''),
      (userId, id, answer, via) => engine.answer(userId, id, answer, via),
      [...premiumSources],
    );
    const runner = new EngineRunner({
      engine,
      exits,
      risk,
      plans: premiumSources.size > 0 ? plans : null,
      bus: app.bus,
      prices: app.prices,
      clock,
      log,
      retracted: (retractedId, retractionId) => retractions.unwindRetracted(retractedId, retractionId),
    });

    // Every process guards the orders it places and hears rule changes; one runs the engine and exits.
    // A manual order goes to the account chosen now: named, so that its balance is read for that one.
    const removeGuard = app.trading.addGuard(async (userId, request, account) =>
      risk.guardOrder(userId, request.amount, account ?? (await app.trading.account(userId)).account),
    );
    // A market order sent without a slippage cap of its own takes the user's, from the same row.
    app.trading.slippage.useDefault((userId) => risk.maxSlippagePct(userId));
    // The health answer says whether the stops and targets of positions on keys act here now.
    const showTriggers = liveTriggersShown(prices.liveActive, app.health, log);
    showTriggers();
    const disposers = [
      removeGuard,
      app.prices.onTicks(showTriggers),
      every(clock, 1000, showTriggers),
      ...bus.listen(),
    ];
    await runner.hold(app.leases);
    app.decorate('rules', { service, risk, engine, exits, livePriceTriggers: prices.liveActive });

    const runBacktest = backtestRunner(app, service, risk, clock);
    const reports = new ReportsService({
      service,
      repo,
      risk,
      backtest: runBacktest,
      trading: app.trading,
      scorecardPrices: app.scorecardPrices,
    });

    registerRulesRoutes(app, {
      service,
      risk,
      backtest: runBacktest,
      venueOf: (userId, account) => app.trading.venueOf(userId, account),
      minimumOrder: minimumOf(app.trading, priceOf),
      flatten: (userId) => exits.flatten(userId),
      gap: (userId, ruleId) => reports.gap(userId, ruleId),
      promotion: (userId, ruleId, account) => reports.promotion(userId, ruleId, account),
    });

    app.addHook('onClose', async () => {
      await runner.close(disposers);
      await locks.close();
    });
  },
  { name: 'rules', dependencies: ['trading', 'plans', 'news', 'market', 'scorecard'] },
);
