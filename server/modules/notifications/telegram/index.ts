import type { FastifyInstance } from 'fastify';
import type { TelegramState } from '../../../../src/contracts/notifications';
import { appError } from '../../../plugins/errors';
import { systemClock, type Clock, type Disposer } from '../../market/clock';
import { every } from '../../market/clock';
import type { NotificationChannel, Note } from '../channels';
import { BotApi, parseUpdate } from './bot-api';
import { noteText } from './format';
import { logReason } from './log-reason';
import { Outbox, type Outgoing } from './outbox';
import { TelegramBot, type BotDeps, type BotTrading, type TelegramBotOptions } from './telegram-bot';
import { ALLOWED_UPDATES, dispatch, startUpdatePolling, type UpdateSink } from './telegram-reader';
import { TelegramRepo } from './telegram.repo';
import { TelegramUpdates } from './telegram-updates';
import { BOT_UNKNOWN, registerTelegramRoutes } from './telegram.routes';

export { ACTION_MS, CONFIRM_IN_APP, CONFIRM_REFUSED, LINK_CODE_MS, LIVE_ORDERS_OFF } from './telegram-bot';

/**
 * The USDT amount of the Long / Short buttons under an alert when the dispatcher has none of the user's
 * own: quick amounts live in the browser (local storage), and this is the first of their defaults.
 */
export const DEFAULT_BUTTON_AMOUNT_USD = 100;

/** What the bot needs from other modules, as functions. */
export interface TelegramDeps extends BotDeps {
  /** Trading for the commands and buttons; by default the trading module's (`app.trading`). */
  trading?: BotTrading;
  /** Tests pass a fake; the bot's timers and expiries run on it. */
  clock?: Clock;
  /** The HTTP client for the Bot API (default: fetch). */
  fetch?: typeof fetch;
  /** Tuning for tests: long-poll seconds, outbox tick. */
  longPollSeconds?: number;
  outboxTickMs?: number;
  unknownLookupMs?: number;
}

/** What tests replace of the bot's dependencies when the app is built (`BuildOptions.telegram`). */
export type TelegramOverrides = Partial<TelegramDeps>;

declare module 'fastify' {
  interface FastifyInstance {
    telegramOverrides: TelegramOverrides;
  }
}

export interface TelegramPart {
  channel: NotificationChannel;
  state(userId: string): Promise<TelegramState>;
  close(): Promise<void>;
}

function tradingOf(app: FastifyInstance): BotTrading {
  const t = app.trading;
  return {
    account: (userId) => t.account(userId),
    venueOf: (userId, account) => t.venueOf(userId, account),
    positions: (userId, account) => t.positions(userId, account),
    balance: (userId) => t.balance(userId),
    placeOrder: (userId, request, key, account) => t.placeOrder(userId, request, key, { account }),
    reduce: (userId, account, request) => t.reducePosition(userId, account, request),
    closeAll: (userId) => t.closeAll(userId),
    findOrder: (userId, key) => t.findOrder(userId, key),
  };
}

/**
 * The Telegram bot: linking a chat, its commands and buttons, and the notifications channel that sends
 * notes to a linked chat. One process (the holder of the `telegram` lease) reads the bot's updates (long
 * polling, or the webhook when TELEGRAM_WEBHOOK_URL is set) and sends the outbox; channel posts it reads
 * go to the news source on the bus. Without TELEGRAM_BOT_TOKEN nothing is sent and linking says why.
 */
export async function registerTelegram(app: FastifyInstance, deps: TelegramDeps): Promise<TelegramPart> {
  const log = app.log.child({ module: 'telegram' });
  const clock = deps.clock ?? systemClock;
  const repo = new TelegramRepo(app.database.db);
  const token = app.config.TELEGRAM_BOT_TOKEN;
  const webhookUrl = app.config.TELEGRAM_WEBHOOK_URL;

  if (token === undefined) {
    registerTelegramRoutes(app, {
      configured: false,
      link: () => Promise.reject(appError('SERVICE_UNAVAILABLE')),
      // A link left from when the server had a token: it goes, and the log says so.
      unlink: async (userId) => {
        if ((await repo.unlinkUser(userId)) === null) return;
        deps.linkChanged?.(userId);
        await deps.activity?.(userId, { kind: 'telegram_unlinked', detail: { via: 'browser' } });
      },
      webhook: null,
    });
    return {
      channel: { name: 'telegram', reaches: async () => false, deliver: async () => undefined },
      state: async () => ({ configured: false, bot: null, linked: false, chat: null, linked_at: null }),
      close: async () => undefined,
    };
  }

  const api = new BotApi({
    baseUrl: app.config.TELEGRAM_API_URL,
    token,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  let botName: string | null = null;
  const knowBot = async (): Promise<string | null> => {
    if (botName !== null) return botName;
    try {
      const me = await api.call<{ username?: string }>('getMe');
      botName = me.username ?? null;
    } catch (err) {
      log.warn({ reason: logReason(err) }, 'telegram getMe failed');
    }
    return botName;
  };

  let holding = false;
  const outbox = new Outbox({
    repo,
    api,
    clock,
    log,
    onBlocked: async (chatId) => {
      const userId = await repo.unlinkChat(chatId);
      if (userId !== null) await bot.unlinked(userId, 'blocked');
    },
    ...(deps.outboxTickMs === undefined ? {} : { tickMs: deps.outboxTickMs }),
  });
  const send = async (message: Outgoing) => {
    await outbox.enqueue(message);
    // The lease holder sends at once; another process's rows go out on the holder's next tick.
    if (holding) void outbox.kick();
  };
  /** A line to an unlinked chat: behind the linked chats' messages, and dropped when many wait already. */
  const sendLow = async (message: Omit<Outgoing, 'ref'>) => {
    if (await outbox.enqueueLow(message)) {
      if (holding) void outbox.kick();
    } else {
      log.debug({}, 'telegram line to an unlinked chat dropped: the low queue is full');
    }
  };
  /** An update the bot cannot read is confirmed (answered 200, or passed by the poll's offset) and dropped. */
  const ignored = (updateId: number | null) =>
    log.warn({ update: updateId }, 'telegram update ignored: not one the bot can read');
  const options: TelegramBotOptions = {
    repo,
    clock,
    trading: deps.trading ?? tradingOf(app),
    deps,
    send,
    sendLow,
    answerCallback: async (id, text) => {
      // Not queued: a callback query must be answered within seconds or the client gives up on it.
      await api
        .call('answerCallbackQuery', { callback_query_id: id, ...(text === undefined ? {} : { text }) })
        .catch((err: unknown) => log.warn({ reason: logReason(err) }, 'callback not answered'));
    },
    botName: () => botName,
    log,
    ...(deps.unknownLookupMs === undefined ? {} : { unknownLookupMs: deps.unknownLookupMs }),
  };
  const bot = new TelegramBot(options);
  const handler = new TelegramUpdates(bot, options);
  const sink: UpdateSink = {
    handle: (update) => handler.handle(update),
    posts: (updates, backlogBefore) =>
      app.bus.publish('telegram.posts', {
        updates: updates.map((u) => ({ ...u })),
        backlog_before: backlogBefore,
      }),
  };

  // This process's news source takes the channel posts from the bus instead of reading the updates.
  const giveBack: Disposer = app.hasDecorator('telegramHandoff')
    ? app.telegramHandoff.botReads({
        subscribe: (fn) =>
          app.bus.subscribe('telegram.posts', (event) => fn(event.updates, event.backlog_before)),
      })
    : () => undefined;

  const webhookSecret = app.secrets.keyedHash('telegram-webhook', token);
  /** `setWebhook`, tried again every half minute until Telegram takes it (it may be away at start). */
  const setWebhookUntilDone = (url: string): Disposer => {
    let cancel: Disposer = () => undefined;
    let stopped = false;
    const attempt = () => {
      api
        .call('setWebhook', { url, secret_token: webhookSecret, allowed_updates: ALLOWED_UPDATES })
        .catch((err: unknown) => {
          log.warn({ reason: logReason(err) }, 'telegram setWebhook failed');
          if (!stopped) cancel = clock.setTimer(attempt, 30_000);
        });
    };
    attempt();
    return () => {
      stopped = true;
      cancel();
    };
  };
  const running: Disposer[] = [];
  let stateReported = true;
  const release = await app.leases.hold('telegram', {
    async start() {
      holding = true;
      void knowBot();
      running.push(outbox.start());
      running.push(
        every(clock, 60_000, () => {
          void repo.sweep(new Date(clock.now() - 3600_000)).catch(() => undefined);
          void repo.dropStaleLow(new Date(clock.now() - 60_000)).catch(() => undefined);
        }),
      );
      if (webhookUrl !== undefined) {
        running.push(setWebhookUntilDone(webhookUrl));
        return;
      }
      running.push(
        startUpdatePolling({
          api,
          clock,
          sink,
          ...(deps.longPollSeconds === undefined ? {} : { longPollSeconds: deps.longPollSeconds }),
          onIgnored: ignored,
          onState: (ok, reason) => {
            if (ok && !stateReported) log.info({}, 'telegram updates read again');
            if (!ok && stateReported) log.warn({ reason }, 'telegram updates not read');
            stateReported = ok;
          },
        }),
      );
    },
    stop() {
      holding = false;
      for (const dispose of running.splice(0)) dispose();
    },
  });
  if (!holding) void knowBot();

  registerTelegramRoutes(app, {
    configured: true,
    async link(userId) {
      const name = await knowBot();
      if (name === null) throw appError('SERVICE_UNAVAILABLE', BOT_UNKNOWN);
      const made = await bot.createLinkCode(userId);
      return {
        code: made.code,
        url: `https://t.me/${name}?start=${made.code}`,
        expires_at: made.expiresAt.toISOString(),
      };
    },
    unlink: async (userId) => void (await bot.unlink(userId)),
    webhook:
      webhookUrl === undefined
        ? null
        : {
            secret: webhookSecret,
            take: async (raw: unknown) => {
              const { update, id } = parseUpdate(raw);
              if (update === null) ignored(id);
              else await dispatch([update], sink, null);
            },
          },
  });

  const channel: NotificationChannel = {
    name: 'telegram',
    reaches: async (userId) => (await repo.linkOf(userId)) !== null,
    async deliver(original: Note) {
      try {
        const link = await repo.linkOf(original.userId);
        if (link === null) return;
        // A proposal whose Confirm the chat could not use goes without it, saying where to confirm; a
        // dispute's question without the Close buttons it could not use, saying where to close.
        const note =
          original.kind === 'proposal'
            ? await bot.gateProposal(original)
            : original.kind === 'dispute'
              ? await bot.gateCloses(original)
              : original;
        const keyboard =
          note.actions !== undefined && note.actions.length > 0
            ? await bot.keyboard(note.userId, note.actions)
            : { inline_keyboard: [] };
        const params = {
          text: noteText(note),
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          reply_markup: keyboard,
        };
        const edit = note.replaces === true && note.ref !== undefined;
        await send({
          chatId: link.chatId,
          method: edit ? 'editMessageText' : 'sendMessage',
          params,
          ref: note.ref ?? null,
        });
      } catch (err) {
        log.warn({ reason: logReason(err), kind: original.kind }, 'telegram note not queued');
      }
    },
  };

  return {
    channel,
    async state(userId) {
      const link = await repo.linkOf(userId);
      return {
        configured: true,
        bot: botName,
        linked: link !== null,
        chat: link?.username ?? null,
        linked_at: link?.linkedAt.toISOString() ?? null,
      };
    },
    async close() {
      await release();
      giveBack();
    },
  };
}
