import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { systemClock, type Disposer } from '../market/clock';
import type { NotificationChannel } from './channels';
import { Dispatcher } from './dispatcher';
import { NotificationsRepo } from './notifications.repo';
import { registerNotificationsRoutes } from './notifications.routes';
import { hostOf, NotificationsService } from './notifications.service';
import type { Resolver } from '../news/proxy/fetch-image';
import { PushEndpointPolicy } from './push/endpoint-policy';
import { PushChannel } from './push/push-channel';
import { pinnedSend } from './push/push-send';
import { loadVapidKeys, type VapidKeys } from './push/vapid';
import { registerTelegram, type TelegramPart } from './telegram';

/** What tests give Web Push instead of the real network's (`BuildOptions.push`). */
export interface PushOverrides {
  /** Origins of loopback push doubles (`http://127.0.0.1:<port>`) taken over plain http. */
  testOrigins?: readonly string[];
  /** Answers host names instead of the system's DNS. */
  resolve?: Resolver;
  /** Told of every connection to a push service (tests prove a refusal connected nowhere). */
  onConnect?: (address: string) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    notifications: {
      settings: NotificationsService;
      dispatcher: Dispatcher;
      push: PushChannel;
      telegram: TelegramPart;
    };
    pushOverrides: PushOverrides;
  }
}

/**
 * The notifications module: per-user settings, the Web Push subscriptions and their VAPID keys, and the
 * dispatcher that turns the bus's signals, rule decisions, retractions and disputes into notes for the channels
 * that reach each user. The dispatcher runs on the one process holding the `notifications` lease, so each
 * note goes out once however many processes serve the API.
 */
export default fp(
  async function notificationsModule(app: FastifyInstance) {
    const log = app.log.child({ module: 'notifications' });
    const clock = systemClock;
    const repo = new NotificationsRepo(app.database.db);

    // The VAPID pair is read (or made) on first use; a server that cannot keep one sends no Web Push.
    let vapid: Promise<VapidKeys | null> | null = null;
    const keys = () => {
      vapid ??= loadVapidKeys(app.config, repo, app.secrets).catch((err: unknown) => {
        log.warn({ err }, 'no VAPID key pair: Web Push is off');
        vapid = null;
        return null;
      });
      return vapid;
    };
    const activity = (userId: string, event: Parameters<typeof app.activity.record>[1]) =>
      app.activity.record(userId, event);
    const overrides: PushOverrides = app.hasDecorator('pushOverrides') ? app.pushOverrides : {};
    const endpoints = new PushEndpointPolicy({
      hosts: app.config.PUSH_SERVICE_HOSTS,
      ...(overrides.resolve === undefined ? {} : { resolve: overrides.resolve }),
      ...(overrides.testOrigins === undefined ? {} : { testOrigins: overrides.testOrigins }),
    });
    const push = new PushChannel({
      repo,
      keys,
      clock,
      log,
      appUrl: `${app.config.PUBLIC_URL}/`,
      send: pinnedSend(
        endpoints,
        overrides.onConnect === undefined ? {} : { onConnect: overrides.onConnect },
      ),
      removed: (sub, reason) =>
        void activity(sub.userId, {
          kind: 'push_unsubscribed',
          detail: { host: hostOf(sub.endpoint), reason },
        }),
    });

    const changed = (userId: string) =>
      void app.bus.publish('notifications.changed', { userId }).catch(() => undefined);
    // The bot answers from the other modules' services; tests replace some of them (BuildOptions.telegram).
    let settings: NotificationsService | null = null;
    const telegram = await registerTelegram(app, {
      liveOrdersAllowed: (userId) => settings?.liveOrdersAllowed(userId) ?? Promise.resolve(false),
      answerProposal: async (userId, decisionId, answer, via) => {
        const answered = await app.rules.service.answer(userId, decisionId, answer, via);
        return { ok: answered.decision.outcome === 'fired', message: answered.message };
      },
      // `/rules off` is the console's `rules off`: the kill switch, every automated order stopped.
      turnRulesOff: async (userId) => {
        await app.rules.risk.killSwitch(userId, true);
        return 'Kill switch on: your rules place no orders until you turn them back on with `rules on` in the console.';
      },
      decisionAccount: (userId, decisionId) => repo.decisionAccount(userId, decisionId),
      linkChanged: changed,
      activity,
      ...(app.hasDecorator('telegramOverrides') ? app.telegramOverrides : {}),
    });
    const channels: NotificationChannel[] = [push, telegram.channel];
    const telegramState = (userId: string) => telegram.state(userId);

    const dispatcher = new Dispatcher({
      channels,
      reachable: (userId) => repo.reachable(userId),
      tradersOf: (signalId) => repo.tradersOf(Number(signalId)),
      openOn: (signalId) => repo.openOn(Number(signalId)),
      positions: async (userId) => {
        const { account } = await app.trading.account(userId);
        return { account, positions: await app.trading.positions(userId, account) };
      },
      pnlBetween: (userId, from, to) => repo.pnlBetween(userId, from, to),
      priceOf: (symbol) => app.prices.last(symbol),
      premiumSources: new Set(app.config.PREMIUM_NEWS_SOURCES),
      isPremium: async (userId) => (await app.plans.planOf(userId)) === 'premium',
      clock,
      log,
    });

    settings = new NotificationsService(repo, {
      telegram: telegramState,
      vapid: keys,
      endpoints,
      changed,
      activity,
    });
    app.decorate('notifications', { settings, dispatcher, push, telegram });

    const running: Disposer[] = [];
    const release = await app.leases.hold('notifications', {
      async start() {
        await dispatcher.start();
        log.info({ users: dispatcher.size }, 'notifications dispatcher started');
        // Each handler returns at once: the dispatcher works after the stream and the engine are done.
        running.push(
          app.bus.subscribe('signal.published', ({ signal }) => dispatcher.onSignal(signal)),
          app.bus.subscribe('rules.decided', (event) => dispatcher.onDecided(event)),
          app.bus.subscribe('signal.retracted', (event) => dispatcher.onRetracted(event)),
          app.bus.subscribe('signal.disputed', (event) => dispatcher.onDisputed(event)),
          app.bus.subscribe('trading.protection', (event) => dispatcher.onProtection(event)),
          app.bus.subscribe('notifications.changed', ({ userId }) => {
            void dispatcher
              .refresh(userId)
              .catch((err: unknown) => log.warn({ err }, 'audience not refreshed'));
          }),
        );
      },
      stop() {
        for (const dispose of running.splice(0)) dispose();
        dispatcher.stop();
      },
    });

    registerNotificationsRoutes(app, settings);

    app.addHook('onClose', async () => {
      await release();
      await dispatcher.idle().catch(() => undefined);
      await telegram.close();
    });
  },
  {
    name: 'notifications',
    dependencies: ['auth-guard', 'activity', 'trading', 'rules', 'billing', 'plans', 'market'],
  },
);
