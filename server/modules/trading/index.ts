import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AccountResolver, parseLiveAccount } from './accounts';
import { AccountsRepo } from './accounts.repo';
import { IdempotencyRepo } from './idempotency.repo';
import { ExchangeHealth } from './exchange-health';
import { buildLiveVenues, everyAdapter } from './live-venues';
import { LedgerRepo } from './paper/ledger.repo';
import { PaperExchange } from './paper/paper-exchange';
import { PositionsHub } from './positions-hub';
import { ProtectionRepo } from './protection/protection.repo';
import { ProtectionService } from './protection/protection.service';
import { userLocks } from '../../db/user-locks';
import { registerTradingRoutes } from './trading.routes';
import { limitFilledText } from './order-limit';
import { pairOf } from '../../../src/contracts/trading';
import { TradingService } from './trading.service';
import { TradesRepo } from './trades.repo';
import { warmTrading } from '../../warm';

declare module 'fastify' {
  interface FastifyInstance {
    trading: TradingService;
  }
}

export interface TradingPluginOptions {
  /** Slippage of paper fills in basis points (default 2). */
  slippageBps?: number;
}

/**
 * The trading module: each user's orders go to the account they chose (`account use`): the paper
 * exchange, marked to Binance's mark price (`price.mark`) when the feed is Binance's and to the last
 * price otherwise (the simulator publishes no marks), with liquidations checked whenever a mark moves,
 * or one of their keys (live or demo) on Binance USD-M, Bybit or OKX through that venue's live adapter. Orders fill around the
 * last price. Positions are pushed over /ws/positions.
 */
export default fp(
  async function tradingModule(app: FastifyInstance, opts: TradingPluginOptions) {
    const log = app.log.child({ module: 'trading' });
    const origin = randomUUID();
    const marks = app.prices;
    let hub: PositionsHub | null = null;

    const paper = new PaperExchange({
      repo: new LedgerRepo(app.database.db),
      marks: { price: (symbol) => marks.markPrice(symbol), fillPrice: (symbol) => marks.last(symbol) },
      slippageBps: opts.slippageBps ?? 2,
      // A snapshot that could not be written costs only replay time on the next load.
      onSnapshotError: (userId, err) => log.warn({ err, userId }, 'paper snapshot not written'),
      onLiquidation: (userId, symbol, price) => {
        log.warn({ userId, symbol, price, mark: marks.at(symbol) }, 'paper position liquidated');
        hub?.liquidated(userId, symbol, Number(price));
        void app.bus.publish('trading.account', {
          userId,
          origin,
          reason: 'liquidation',
          symbol,
          price: Number(price),
        });
      },
    });
    /** Before an order or a read: a young last price to fill around (the market is asked when older). */
    const ensureMark = async (symbol: string) => {
      await marks.fresh(symbol);
    };
    // Rate limits, 5xx and calls without an answer on the live and demo venues, for the health check.
    const exchangeHealth = new ExchangeHealth();
    const unwatch = app.health.watch('exchange', () => exchangeHealth.problem());
    const live = buildLiveVenues(app, exchangeHealth, log);
    const adapters = everyAdapter(live);
    const accounts = new AccountResolver(new AccountsRepo(app.database.db), app.exchanges, paper, live);
    const service = new TradingService(accounts, paper, new IdempotencyRepo(app.database.db), ensureMark, {
      settleMs: app.config.BINANCE_ORDER_SETTLE_MS,
      price: (symbol) => marks.last(symbol),
      trades: new TradesRepo(app.database.db),
      onRecordError: (err, userId, orderId) =>
        log.error({ err, userId, orderId }, 'fill not written to the trade history'),
    });
    // Each position's stop, target and trailing stop rest on its venue; its time exit is ours. A user's
    // protection work runs one at a time across processes (its own lock key, never the rules' one).
    const protectionLocks = userLocks(app.database, `${app.config.REDIS_PREFIX}protection:`, log);
    const protection = new ProtectionService({
      lock: (userId, work) => protectionLocks.run(`protection:${userId}`, () => work()),
      repo: new ProtectionRepo(app.database.db),
      account: (userId, name) => accounts.byName(userId, name),
      // Its only close is the time exit: the Closed tab says `hold`.
      reduce: (userId, account, request) =>
        service.reducePosition(userId, account, request, { source: 'manual', reason: 'hold' }),
      notify: (userId, notice) => {
        hub?.tell(userId, { type: 'protection', ...notice, time: Date.now() });
        void app.bus.publish('trading.protection', { userId, origin, ...notice });
      },
      log,
    });
    service.useProtection(protection);
    await protection.refreshGuarded();
    const guardedRefresh = setInterval(() => {
      void protection
        .refreshGuarded()
        .catch((err: unknown) => log.warn({ err }, 'protected accounts not read'));
    }, 5_000);
    guardedRefresh.unref();
    /** While a user on a live account has a positions socket open, their user-data stream runs. */
    const watchLive = (userId: string): (() => void) => {
      let stop: (() => void) | null = null;
      let done = false;
      void accounts
        .resolve(userId)
        .then((where) => {
          if (done || where.mode === 'paper') return;
          if (where.venue === 'paper') return;
          stop = live[where.venue]?.[where.mode].watch(where.account) ?? null;
        })
        .catch((err: unknown) => log.warn({ err, userId }, 'account not resolved for its stream'));
      return () => {
        done = true;
        stop?.();
      };
    };
    hub = new PositionsHub({
      positions: (userId, account) => service.positions(userId, account),
      orders: (userId, account) => service.limits.open(userId, account, true),
      account: async (userId) => (await service.account(userId)).account,
      watch: watchLive,
    });
    const positionsHub = hub;
    // One process watches every paper position for liquidation (the holder of `paper-liquidations`).
    let liquidating = false;
    const marksMoved = (moved: ReadonlySet<string>): Promise<void> | undefined => {
      if (moved.size === 0) return undefined;
      positionsHub.marksMoved(moved);
      if (!liquidating) return undefined;
      // Stops and targets first: one the mark reached closes its position before a liquidation would.
      const conditionals = paper.checkConditionals(moved);
      const limits = paper.checkLimits(moved);
      return Promise.all([conditionals, limits, paper.checkLiquidations(moved)]).then(() => undefined);
    };

    const disposers = [
      // A leg that changed on the venue, a fill, a position update: that account's protection is checked.
      paper.subscribeAll((userId, event) => protection.onVenueEvent(userId, 'paper', event)),
      // A limit order the market filled off the book goes in the trade history, as every fill does.
      paper.subscribeAll((userId, event) => {
        if (event.e !== 'ORDER_TRADE_UPDATE' || event.o.o !== 'LIMIT' || event.o.X !== 'FILLED') return;
        // One that rested tells the user's tabs, here and through the other processes.
        if (event.o.rested === true) {
          const notice = { symbol: pairOf(event.o.s), text: limitFilledText(event.o) };
          positionsHub.tell(userId, { type: 'limit_filled', ...notice, time: Date.now() });
          void app.bus.publish('trading.limit', { userId, origin, ...notice });
        }
        void service.limits
          .recordPaperFill(userId, event)
          .catch((err: unknown) => log.error({ err, userId }, 'limit fill not written to the trade history'));
      }),
      ...adapters.map((adapter) =>
        adapter.subscribeAll((account, event) => {
          const { userId, keyId } = parseLiveAccount(account);
          protection.onVenueEvent(userId, keyId, event);
        }),
      ),
      app.bus.subscribe('trading.limit', (event) => {
        if (event.origin === origin) return;
        positionsHub.tell(event.userId, {
          type: 'limit_filled',
          symbol: event.symbol,
          text: event.text,
          time: Date.now(),
        });
      }),
      app.bus.subscribe('trading.protection', (event) => {
        if (event.origin === origin) return;
        const { userId, origin: _from, ...notice } = event;
        positionsHub.tell(userId, { type: 'protection', ...notice, time: Date.now() });
      }),
      // Changes made here reach this process's sockets directly; other processes hear them on the bus.
      paper.subscribeAll((userId, event) => {
        // A conditional order placed, cancelled or refused here, which no fill tells: the process watching
        // the marks loads the account again, and so watches its orders as they now are.
        if (event.e === 'ALGO_UPDATE' && ['NEW', 'CANCELED', 'REJECTED'].includes(event.order.status)) {
          void app.bus.publish('trading.account', { userId, origin, reason: 'order' });
        }
        if (event.e !== 'ACCOUNT_UPDATE' || event.a.m === 'LIQUIDATION') return;
        positionsHub.accountChanged(userId);
        void app.bus.publish('trading.account', {
          userId,
          origin,
          reason: event.a.m === 'DEPOSIT' ? 'reset' : 'order',
        });
      }),
      // Fills on a live account through this process: its sockets get a fresh snapshot.
      ...adapters.map((adapter) =>
        adapter.subscribeAll((account) => positionsHub.accountChanged(parseLiveAccount(account).userId)),
      ),
      // Either batch can move a symbol's mark: trades move those without a fresh mark of their own.
      marks.onMarksMoved((moved) => {
        marksMoved(moved)?.catch((err: unknown) => log.warn({ err }, 'liquidation check failed'));
      }),
      // An ask rule's proposal, from whichever process decided it, reaches the user's open tabs here.
      app.bus.subscribe('rules.decided', (event) => {
        const time = Date.now();
        if (event.event === 'asking') {
          positionsHub.tell(event.userId, {
            type: 'proposal',
            decision: event.decision,
            headline: event.headline ?? null,
            reasoning: event.reasoning ?? null,
            time,
          });
        } else if (
          (event.event === 'answered' || event.event === 'fired' || event.event === 'skipped') &&
          event.decision.ask_expires_at != null
        ) {
          positionsHub.tell(event.userId, {
            type: 'proposal_closed',
            event: event.event,
            decision: event.decision,
            time,
          });
        }
      }),
      app.bus.subscribe('trading.account', (event) => {
        if (event.origin === origin) return;
        paper.invalidate(event.userId);
        // The liquidation watcher keeps every account loaded, those that another process changed too.
        if (liquidating) void paper.positionRisk(event.userId).catch(() => undefined);
        if (event.reason === 'liquidation' && event.symbol !== undefined && event.price !== undefined) {
          positionsHub.liquidated(event.userId, event.symbol, event.price);
        } else {
          positionsHub.accountChanged(event.userId);
        }
      }),
    ];

    const releaseLiquidations = await app.leases.hold('paper-liquidations', {
      async start() {
        const loaded = await paper.warmUp();
        if (loaded > 0) log.info({ accounts: loaded }, 'paper accounts loaded');
        liquidating = true;
      },
      stop() {
        liquidating = false;
      },
    });
    // One process reconciles every protected position and runs the time exits (the lease's holder); the
    // claims are conditional writes, so a second holder during a hand-over closes nothing twice.
    let protecting: (() => void) | null = null;
    const releaseProtection = await app.leases.hold('position-protection', {
      start() {
        const reconcile = setInterval(() => {
          void protection
            .reconcileAll()
            .catch((err: unknown) => log.warn({ err }, 'protection round failed'));
        }, app.config.PROTECTION_RECONCILE_S * 1000);
        const exits = setInterval(() => {
          void protection.runDueExits().catch((err: unknown) => log.warn({ err }, 'time exits not run'));
        }, 1_000);
        reconcile.unref();
        exits.unref();
        protecting = () => {
          clearInterval(reconcile);
          clearInterval(exits);
        };
      },
      stop() {
        protecting?.();
        protecting = null;
      },
    });
    await warmTrading(app, paper, log);
    app.health.report('exchange', 'paper');
    app.decorate('trading', service);
    registerTradingRoutes(app, { service, hub: positionsHub });

    app.addHook('preClose', async () => {
      positionsHub.closeAll();
    });
    app.addHook('onClose', async () => {
      await releaseLiquidations();
      await releaseProtection();
      clearInterval(guardedRefresh);
      protection.stop();
      await protectionLocks.close();
      service.stop();
      unwatch();
      for (const dispose of disposers) dispose();
      await Promise.all(adapters.map((adapter) => adapter.stopStreams()));
    });
  },
  { name: 'trading', dependencies: ['auth-guard', 'exchanges'] },
);
