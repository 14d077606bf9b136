import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { RULE_DETAILS } from '../../../src/contracts/rules';
import { appError } from '../../plugins/errors';
import { every, systemClock, type Disposer } from '../market/clock';
import { RiskService } from './risk.service';
import { backtest } from './rules.backtest';
import { RuleEngine } from './rules.engine';
import { ExitWatcher } from './rules.exits';
import { RulesRepo } from './rules.repo';
import { registerRulesRoutes } from './rules.routes';
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
    const marks = new Map<string, number>();
    const priceOf = (symbol: string) => marks.get(symbol);

    const engine = new RuleEngine({
      repo,
      risk,
      plans: app.plans,
      signals: app.news,
      trading: {
        placeOrder: (userId, request, key) => app.trading.placeOrder(userId, request, key),
        findOrder: (userId, key) => app.trading.findOrder(userId, key),
        openPositions: async (userId) => (await app.trading.positions(userId)).length,
        accountMode: async (userId) => (await app.trading.account(userId)).mode,
      },
      priceOf,
      clock,
      log,
    });
    const exits = new ExitWatcher({
      repo,
      clock,
      priceOf,
      closePosition: (userId, pair) => app.trading.closePosition(userId, pair),
      log,
    });
    const changed = (userId: string) => {
      // Only the process running the engine keeps rules in memory; the others hear of it on the bus.
      if (running.length > 0) void engine.reload();
      void app.bus.publish('rules.changed', { userId, origin }).catch(() => undefined);
    };
    const service = new RulesService(repo, app.plans, () => changed(''));

    const wake = () => {
      void engine
        .pump()
        .then(() => exits.reload())
        .catch((err: unknown) => log.warn({ err }, 'rule engine run failed'));
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
            if (signal.analysis.status === 'completed') wake();
          }),
          app.bus.subscribe('price.tick', ({ ticks }) => {
            const moved = new Set<string>();
            for (const t of ticks) {
              marks.set(t.s, t.p);
              moved.add(t.s);
            }
            return exits.check(moved);
          }),
          // The safety net: late commits, missed wake-ups, max-hold exits and interrupted decisions.
          every(clock, 1000, () => {
            wake();
            void exits.check();
          }),
        );
      },
      // A decision under way finishes; its once-per-(rule, signal) key keeps the next holder from repeating it.
      stop() {
        for (const dispose of running.splice(0)) dispose();
      },
    });
    app.decorate('rules', { service, risk, engine, exits });

    registerRulesRoutes(app, {
      service,
      risk,
      async backtest(userId, ruleId, body) {
        const rule = (await service.list(userId)).find((r) => r.id === ruleId);
        if (rule === undefined) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
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
  { name: 'rules', dependencies: ['trading', 'plans', 'news', 'market'] },
);
