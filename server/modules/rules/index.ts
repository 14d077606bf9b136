import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Signal } from '../../../src/contracts/signals';
import { findTicker } from '../../../src/contracts/symbols';
import { every, systemClock, type Clock, type Disposer } from '../market/clock';
import { toDecision } from './rules.mapper';
import type { DecisionRow } from './rules.types';
import { RiskService } from './risk.service';
import { backtestRunner } from './backtest-run';
import { RuleEngine, type DecisionEvent, type DecisionNews } from './rules.engine';
import { closeReasonOf, ExitWatcher, retractedWhy } from './rules.exits';
import { exitPrices } from './exit-prices';
import { RulesRepo } from './rules.repo';
import { registerRulesRoutes } from './rules.routes';
import { gapReport, promotionReport } from './rules.reports';
import { RulesService } from './rules.service';
import { PlanBook } from './plan-book';
import { ruleOpenedSymbols, rulePositionCount } from './rule-positions';
import { userLocks } from '../../db/user-locks';
import { warmRules } from '../../warm';

/** Seconds in a row the safety net may wait for decisions under way before it runs regardless. */
const SWEEP_PUT_OFF = 2;

/**
 * The longest a close can last on a venue whose calls time out after `timeoutMs`: the position read,
 * the order, and its look-ups after an unknown outcome (each after the settle time), with room to spare.
 * A close claimed longer ago than this was left by a process that died.
 */
const closeLifeMs = (timeoutMs: number, settleMs: number) => 5 * timeoutMs + 3 * settleMs + 10_000;

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
    const risk = new RiskService(
      repo,
      clock,
      (userId) => void app.bus.publish('rules.changed', { userId, origin }).catch(() => undefined),
      // The default maximum order is a share of the balance of the account the order goes to.
      (userId, account) => app.trading.walletBalance(userId, account),
    );
    // Exits and a decision's price act only on a young price: an older one is no price at all.
    const priceOf = (symbol: string) => app.prices.last(symbol);

    /** What a signal said, read from the store when this process did not see it (an answer, an expiry). */
    const newsOf = async (signalId: number): Promise<DecisionNews | null> => {
      const [signal] = await app.news.list({ limit: 1, before: String(signalId + 1) });
      if (signal === undefined || signal.id !== String(signalId)) return null;
      const reasoning = signal.analysis.status === 'completed' ? signal.analysis.nlp.reasoning : null;
      return { headline: signal.content.replace(/\s+/g, ' ').trim().slice(0, 500), reasoning };
    };
    /** Every decision event goes on the bus: notifications and the user's open tabs, on any process. */
    const decided = (event: DecisionEvent, row: DecisionRow, news: DecisionNews | null) => {
      // A position a rule opened has its exits watched at once, without reading every open exit again.
      if (event === 'fired') exits.track(row);
      void (async () => {
        const about = news ?? (await newsOf(row.signalId).catch(() => null));
        await app.bus.publish('rules.decided', {
          userId: row.userId,
          origin,
          event,
          decision: toDecision(row),
          headline: about?.headline ?? null,
          reasoning: about?.reasoning ?? null,
        });
      })().catch((err: unknown) => log.warn({ err, decision: row.id }, 'rule decision not published'));
    };

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
      decided,
      // A fill that landed on a story retracted while its order was on its way is closed at once.
      unwind: (d) => unwindOne(d),
    });
    // Paper positions are watched on the paper exchange's prices, a key's only on its venue's own.
    const prices = exitPrices(app.prices);
    const originOf = (d: DecisionRow) =>
      ({
        source: 'rule',
        ruleId: d.ruleId,
        ruleName: d.ruleName,
        reason: closeReasonOf(d.exitReason),
      }) as const;
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
          originOf(d),
        ),
      find: (d, clientOrderId) =>
        app.trading.findReduce(d.userId, d.account, { symbol: d.symbol, clientOrderId }, originOf(d)),
      log,
      exited: (d) => engine.exited(d),
      failing: (d) => engine.tell('exit_failing', d),
      // No close can still be under way after this: every venue call of it has timed out by then.
      staleMs: closeLifeMs(app.config.BINANCE_TIMEOUT_MS, app.config.BINANCE_ORDER_SETTLE_MS),
    });
    /** Closes what a decision opened on a retracted story, unless its rule keeps such positions. */
    const unwindOne = async (d: DecisionRow) => {
      if (d.exitPlan?.on_retraction === 'keep' || d.retractedBy === null) return;
      await exits.unwind(d, retractedWhy(d.retractedBy));
    };
    /**
     * A retracted signal, in one statement over its decisions: those not sent yet are cancelled, those
     * whose order is on its way are marked (their fill, when it lands, is closed at once), and every
     * position rules opened on it is closed now (reduce-only, on the decision's account, its own
     * quantity) unless its rule keeps them.
     */
    const unwindRetracted = async (retractedId: string, retractionId: string) => {
      const { cancelled, open } = await repo.retractDecisions(
        Number(retractedId),
        Number(retractionId),
        `The story was retracted by #${retractionId} before the order was sent.`,
      );
      for (const row of cancelled) engine.tell('skipped', row);
      await Promise.all(open.map(unwindOne));
    };
    const changed = (userId: string) => {
      // Only the process running the engine keeps rules in memory; the others hear of it on the bus.
      if (running.length > 0) void engine.reload();
      void app.bus.publish('rules.changed', { userId, origin }).catch(() => undefined);
    };
    // Answers reach any process: the atomic update in the ledger lets the first one win.
    const service = new RulesService(
      repo,
      app.plans,
      () => changed(''),
      (userId, id, answer, via) => engine.answer(userId, id, answer, via),
      [...premiumSources],
    );

    const wake = (sweep = false) => {
      void engine
        .pump({ sweep })
        .then(() => exits.reload())
        .catch((err: unknown) => log.warn({ err }, 'rule engine run failed'));
    };
    // A completed signal is decided on the next turn of the event loop: what was queued in this one (the
    // signal stream's write of the same card) goes out first instead of waiting for the orders. The
    // signal the bus carries is the stored one (published after its row was written), so it is decided
    // as heard. The cursor's read of the store is the safety net's (every second): it moves past what
    // was heard and decides what the bus lost, without two more statements for every signal.
    let heard: Signal[] = [];
    const wakeSoon = (signal: Signal) => {
      heard.push(signal);
      if (heard.length > 1) return;
      setImmediate(() => {
        const due = heard;
        heard = [];
        void Promise.all(due.map((s) => engine.hear(s))).catch((err: unknown) =>
          log.warn({ err }, 'rule engine run failed'),
        );
      });
    };
    // Every process guards the orders it places and hears rule changes; one runs the engine and exits.
    // A manual order goes to the account chosen now: named, so that its balance is read for that one.
    const removeGuard = app.trading.addGuard(async (userId, request, account) =>
      risk.guardOrder(userId, request.amount, account ?? (await app.trading.account(userId)).account),
    );
    // A market order sent without a slippage cap of its own takes the user's, from the same row.
    app.trading.slippage.useDefault((userId) => risk.maxSlippagePct(userId));
    // The health answer says whether the stops and targets of positions on keys act here now.
    let triggersShown: boolean | undefined;
    const showTriggers = () => {
      const on = prices.liveActive();
      if (on === triggersShown) return;
      triggersShown = on;
      app.health.report('livePriceTriggers', on);
      log.info(
        { livePriceTriggers: on },
        on
          ? "rules' take profit and stop loss on live and demo accounts act on Binance's prices"
          : "rules' take profit and stop loss on live and demo accounts wait: no Binance prices here",
      );
    };
    showTriggers();
    const disposers = [
      removeGuard,
      app.prices.onTicks(showTriggers),
      every(clock, 1000, showTriggers),
      app.bus.subscribe('rules.changed', (event) => {
        if (event.origin === origin) return;
        risk.forget(event.userId);
        if (running.length > 0) void engine.reload();
      }),
      // A decision another process changed (a proposal confirmed there): the book of fired totals
      // counts it as that process recorded it. This process's own changes are counted as they happen.
      app.bus.subscribe('rules.decided', ({ origin: from, userId, event, decision }) => {
        if (from === origin || event === 'exit' || event === 'exit_failing') return;
        engine.book.apply({
          userId,
          id: Number(decision.id),
          asset: decision.asset,
          outcome: decision.outcome,
          at: Date.parse(decision.decided_at),
          amount: decision.amount_usd,
          notional: decision.notional,
        });
      }),
    ];
    const running: Disposer[] = [];
    let sweepsPut = 0;
    const releaseEngine = await app.leases.hold('rules', {
      async start() {
        await engine.start();
        await exits.reload();
        log.info({ rules: engine.ruleCount, exits: exits.count }, 'rule engine started');
        running.push(
          app.bus.subscribe('signal.published', ({ signal }) => {
            if (signal.analysis.status === 'completed') wakeSoon(signal);
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
          // Binance's mark prices: what the stops and targets of positions on its accounts read first.
          app.prices.onMarksMoved((moved) => {
            void exits.check(moved).catch((err: unknown) => log.warn({ err }, 'exits not checked'));
          }),
          // The safety net: late commits, missed wake-ups, max-hold exits and interrupted decisions. It
          // waits while a signal's decisions are under way (their statements go first), a few seconds at
          // most, so that under a steady stream of news it still runs.
          every(clock, 1000, () => {
            if (engine.deciding && ++sweepsPut < SWEEP_PUT_OFF) return;
            sweepsPut = 0;
            wake(true);
            // Max hold, closes to try again after their back-off, retractions left to unwind, and the
            // closes a stopped process left.
            void exits.check().catch((err: unknown) => log.warn({ err }, 'exits not checked'));
            // Proposals whose window closed: skipped as unanswered, by this process alone.
            void engine.expireAsks().catch((err: unknown) => log.warn({ err }, 'asks not expired'));
            // The risk rows in use, read again before they age out, so that no order waits for its own.
            void risk.keepFresh().catch((err: unknown) => log.warn({ err }, 'risk rows not read'));
            // And the plans in use, for the premium sources' items.
            if (premiumSources.size > 0) void plans.keepFresh();
          }),
        );
      },
      // A decision under way finishes; its once-per-(rule, signal) key keeps the next holder from repeating it.
      stop() {
        for (const dispose of running.splice(0)) dispose();
        engine.stop();
        exits.stop();
      },
    });
    app.decorate('rules', { service, risk, engine, exits, livePriceTriggers: prices.liveActive });

    const runBacktest = backtestRunner(app, service, risk, clock);

    registerRulesRoutes(app, {
      service,
      risk,
      backtest: runBacktest,
      venueOf: (userId, account) => app.trading.venueOf(userId, account),
      async minimumOrder(userId, account, asset) {
        const symbol = findTicker(asset)?.symbol;
        if (symbol === undefined) return null;
        return app.trading.minimumOrder(userId, account, symbol, priceOf(symbol));
      },
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
          runBacktest(userId, ruleId, { hold_minutes: rule.action.exit?.max_hold_minutes ?? 30 }),
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
      await locks.close();
    });
  },
  { name: 'rules', dependencies: ['trading', 'plans', 'news', 'market', 'scorecard'] },
);
