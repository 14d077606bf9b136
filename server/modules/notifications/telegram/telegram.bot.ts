import { createHash, randomBytes } from 'node:crypto';
import type {
  AccountState,
  Balance,
  CloseAllResponse,
  OrderRequest,
  OrderResponse,
  OrderVenue,
  Position,
} from '../../../../src/contracts/trading';
import type { Clock } from '../../market/clock';
import { AppError } from '../../../plugins/errors';
import { closedText, signedUsdt } from '../../trading/trade-log';
import { UNKNOWN_SETTLE_MS } from '../../trading/trading.service';
import type { ActivityEvent } from '../../activity/activity.service';
import type { Note, NoteAction } from '../channels';
import type { TgCallbackQuery, TgMessage, TgUpdate } from './bot-api';
import { fillText, HELP_TEXT, HOW_TO_LINK, positionsText, venueText } from './format';
import { logReason } from './log-reason';
import type { Outgoing } from './outbox';
import type { TelegramRepo } from './telegram.repo';

/** A link code lives this long (and is used once). */
export const LINK_CODE_MS = 10 * 60_000;
/** A button works this long after its message was made (and once). */
export const ACTION_MS = 5 * 60_000;

export const LIVE_ORDERS_OFF =
  'Orders on a live key from Telegram are off. Turn them on in the browser: Settings › Notifications › Telegram live orders.';
export const BUTTON_USED = 'This button has expired or was already used.';
/** Under a proposal for a key that is not paper, while Telegram live orders are off: no Confirm button. */
export const CONFIRM_IN_APP = 'Live orders from Telegram are off: confirm in the app.';
/** Under a question whose Close buttons would close on a key that is not paper, while Telegram live orders are off. */
export const CLOSE_IN_APP = 'Live orders from Telegram are off: close it in the app.';
/** The answer to a Confirm pressed on such a proposal (a button sent while the setting was on). */
export const CONFIRM_REFUSED = `${CONFIRM_IN_APP} Nothing was placed from this chat.`;
export const PRIVATE_ONLY =
  'Only a private chat with the bot can be linked: open the link in your own chat with the bot, not in a group.';
export const NOT_THE_SENDER = 'Only the Telegram account that linked this chat can use its buttons.';
export const CODE_REFUSED =
  'That link code has expired, was replaced by a newer one or was already used. Make a new one in the console: telegram link';

/** What a button does: a note's action, or the bot's own (the two answers to /flatten). */
export type BotAction = NoteAction['action'] | { kind: 'flatten' } | { kind: 'cancel' };

/** The trading the bot's commands and buttons use, as the trading module answers it. */
export interface BotTrading {
  account(userId: string): Promise<AccountState>;
  venueOf(userId: string, account: string): Promise<OrderVenue>;
  positions(userId: string, account?: string): Promise<Position[]>;
  balance(userId: string): Promise<Balance>;
  placeOrder(userId: string, request: OrderRequest, key: string, account: string): Promise<OrderResponse>;
  reduce(
    userId: string,
    account: string,
    request: { symbol: string; opened: 'long' | 'short'; quantity: number; clientOrderId: string },
  ): Promise<OrderResponse | null>;
  closeAll(userId: string): Promise<CloseAllResponse>;
  /** The order an idempotency key placed (null: none filled); throws while the venue still does not say. */
  findOrder(userId: string, key: string): Promise<OrderResponse | null>;
}

/** What the bot needs from the rest of the app besides trading (see TelegramDeps). */
export interface BotDeps {
  liveOrdersAllowed(userId: string): Promise<boolean>;
  answerProposal(
    userId: string,
    decisionId: string,
    answer: 'confirm' | 'reject',
    via: 'telegram',
  ): Promise<{ ok: boolean; message: string }>;
  turnRulesOff(userId: string): Promise<string>;
  /** The account ('paper' or a key id) an ask rule's proposal of this user would place on; null: none. */
  decisionAccount(userId: string, decisionId: string): Promise<string | null>;
  /** A chat was linked to the user or unlinked: whoever keeps the list of users it may reach re-reads it. */
  linkChanged?(userId: string): void;
  /** The account's activity log (a linked chat is a new way to reach and act on the account). */
  activity?(userId: string, event: ActivityEvent): Promise<void>;
}

export interface TelegramBotOptions {
  repo: TelegramRepo;
  clock: Clock;
  trading: BotTrading;
  deps: BotDeps;
  /** Queues a message (and wakes the sender). */
  send(message: Outgoing): Promise<void>;
  /** Queues a line to a chat that is not linked, behind every linked chat's message (or drops it). */
  sendLow(message: Omit<Outgoing, 'ref'>): Promise<void>;
  /** `answerCallbackQuery`, at once: the user's client spins until it is called. */
  answerCallback(id: string, text?: string): Promise<void>;
  /** The bot's @username once known (for t.me links). */
  botName(): string | null;
  log: { warn(obj: object, msg: string): void };
  /** How long after an order of unknown outcome it is looked up (default: the trading module's settle time). */
  unknownLookupMs?: number;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** 32 characters of A-Z a-z 0-9 _ -: fits a deep link's payload and a button's 64 bytes. */
const token = () => randomBytes(24).toString('base64url');

/** The text of an AppError (`detail`) or of any error, as one line for the chat. */
function problemText(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'detail' in err && typeof err.detail === 'string')
    return err.detail;
  return 'That did not work; the server could not do it now.';
}

/**
 * What the bot does with an update: `/start <code>` in a private chat links it to the code's user and
 * the Telegram user who sent it; that sender's commands in that chat are answered and their button
 * presses run their single-use action. A group is never linked, and anything from a chat that is not
 * linked gets one line (how to link), queued behind every linked chat's messages. Every answer goes
 * through the outbox.
 */
export class TelegramBot {
  constructor(private readonly o: TelegramBotOptions) {}

  /** A one-time code for `/start`, kept only as its hash; the user's earlier codes stop working. */
  async createLinkCode(userId: string): Promise<{ code: string; url: string | null; expiresAt: Date }> {
    const code = token();
    const expiresAt = new Date(this.o.clock.now() + LINK_CODE_MS);
    await this.o.repo.replaceCode(userId, sha256(code), expiresAt);
    const bot = this.o.botName();
    return { code, url: bot === null ? null : `https://t.me/${bot}?start=${code}`, expiresAt };
  }

  /** Unlinks the user's chat (from the browser) and voids their link codes; the chat is told. */
  async unlink(userId: string): Promise<boolean> {
    const chatId = await this.o.repo.unlinkUser(userId);
    if (chatId === null) return false;
    await this.unlinked(userId, 'browser');
    await this.reply(chatId, 'This chat was unlinked from the console. Nothing more will be sent here.');
    return true;
  }

  /** What follows any unlink: the dispatcher re-reads the user, and the activity log has a line. */
  async unlinked(userId: string, via: 'browser' | 'chat' | 'blocked' | 'relinked'): Promise<void> {
    this.o.deps.linkChanged?.(userId);
    await this.o.deps.activity?.(userId, { kind: 'telegram_unlinked', detail: { via } });
  }

  /**
   * Whether a Confirm from the chat may place this proposal's order: always on paper; on any other key
   * (live or demo) only with the user's Telegram live orders on, as every other order path of the bot.
   * A decision that is not the user's is left to the rules' answer (which places nothing for it).
   */
  async confirmAllowed(userId: string, decisionId: string): Promise<boolean> {
    const account = await this.o.deps.decisionAccount(userId, decisionId);
    if (account === null) return true;
    return this.allowed(userId, await this.o.trading.venueOf(userId, account));
  }

  /**
   * A proposal as the chat gets it: without its Confirm button, and saying why, when that Confirm could
   * not place the order (or it cannot be told whether it could).
   */
  async gateProposal(note: Note): Promise<Note> {
    const confirm = note.actions?.find((a) => a.action.kind === 'answer' && a.action.answer === 'confirm');
    if (confirm === undefined || confirm.action.kind !== 'answer') return note;
    const allowed = await this.confirmAllowed(note.userId, confirm.action.decisionId).catch(() => false);
    if (allowed) return note;
    return {
      ...note,
      body: [note.body.trim(), CONFIRM_IN_APP].filter((l) => l !== '').join('\n'),
      actions: (note.actions ?? []).filter((a) => a !== confirm),
    };
  }

  /**
   * A question's Close buttons as the chat gets them: only those the chat could run (on paper, or on a
   * key with the user's Telegram live orders on), saying where to close the rest. A button whose
   * account cannot be told now goes too: pressed, it would be refused or fail.
   */
  async gateCloses(note: Note): Promise<Note> {
    const actions = note.actions ?? [];
    const kept: NoteAction[] = [];
    for (const a of actions) {
      if (a.action.kind !== 'close') {
        kept.push(a);
        continue;
      }
      const { account } = a.action;
      const allowed = await this.o.trading
        .venueOf(note.userId, account)
        .then((venue) => this.allowed(note.userId, venue))
        .catch(() => false);
      if (allowed) kept.push(a);
    }
    if (kept.length === actions.length) return note;
    return {
      ...note,
      body: [note.body.trim(), CLOSE_IN_APP].filter((l) => l !== '').join('\n'),
      actions: kept,
    };
  }

  /** An inline keyboard row of single-use buttons for `userId`. */
  async keyboard(
    userId: string,
    buttons: readonly { label: string; action: BotAction }[],
  ): Promise<{ inline_keyboard: { text: string; callback_data: string }[][] }> {
    const expiresAt = new Date(this.o.clock.now() + ACTION_MS);
    const row = await Promise.all(
      buttons.map(async (b) => {
        const data = token();
        await this.o.repo.addAction(sha256(data), userId, b.action, expiresAt);
        return { text: b.label, callback_data: data };
      }),
    );
    return { inline_keyboard: [row] };
  }

  async handle(update: TgUpdate): Promise<void> {
    try {
      if (update.callback_query !== undefined) await this.pressed(update.callback_query);
      else if (update.message !== undefined) await this.message(update.message);
    } catch (err) {
      this.o.log.warn({ update: update.update_id, reason: logReason(err) }, 'telegram update not handled');
    }
  }

  private reply(chatId: number, text: string, extra: Record<string, unknown> = {}): Promise<void> {
    return this.o.send({ chatId, method: 'sendMessage', params: { text, ...extra } });
  }

  /** A line to a chat that is not linked: it waits behind every linked chat's message, or is dropped. */
  private replyLow(chatId: number, text: string): Promise<void> {
    return this.o.sendLow({ chatId, method: 'sendMessage', params: { text } });
  }

  private edit(message: TgMessage, text: string): Promise<void> {
    return this.o.send({
      chatId: message.chat.id,
      method: 'editMessageText',
      params: { message_id: message.message_id, text, reply_markup: { inline_keyboard: [] } },
    });
  }

  private async message(message: TgMessage): Promise<void> {
    const text = (message.text ?? '').trim();
    const chatId = message.chat.id;
    const [head = '', ...rest] = text.split(/\s+/);
    const command = head.startsWith('/') ? (head.slice(1).split('@')[0] ?? '').toLowerCase() : '';
    if (message.chat.type !== 'private') {
      // A group is never linked (anyone in it could act on the account): its chatter is not for the bot.
      if (command !== '') await this.replyLow(chatId, PRIVATE_ONLY);
      return;
    }
    if (command === 'start' && rest[0] !== undefined) return this.link(message, rest[0]);
    const linked = await this.o.repo.userOfChat(chatId);
    if (linked === null || message.from === undefined || linked.telegramUserId !== message.from.id) {
      await this.replyLow(chatId, HOW_TO_LINK);
      return;
    }
    const userId = linked.userId;
    switch (command) {
      case 'positions':
        return this.reply(chatId, await this.positions(userId));
      case 'pnl':
        return this.reply(chatId, await this.pnl(userId));
      case 'rules':
        if (rest[0]?.toLowerCase() !== 'off') return this.reply(chatId, 'Usage: /rules off');
        return this.reply(chatId, await this.o.deps.turnRulesOff(userId).catch(problemText));
      case 'flatten':
        return this.askFlatten(userId, chatId);
      case 'unlink':
        if ((await this.o.repo.unlinkChat(chatId)) !== null) await this.unlinked(userId, 'chat');
        return this.reply(chatId, 'Unlinked. Nothing more will be sent here; link again from the console.');
      case 'start':
        return this.reply(chatId, `Linked to ${linked.username}.\n${HELP_TEXT}`);
      case 'help':
        return this.reply(chatId, HELP_TEXT);
      default:
        return this.reply(chatId, `Unknown command.\n${HELP_TEXT}`);
    }
  }

  /** `/start <code>` in a private chat: binds the chat, and the Telegram user who sent it, to the code's user. */
  private async link(message: TgMessage, code: string): Promise<void> {
    const chatId = message.chat.id;
    const { chat, from } = message;
    if (from === undefined || from.is_bot === true) return this.replyLow(chatId, PRIVATE_ONLY);
    const handle = chat.username ?? from.username;
    const name = handle !== undefined ? `@${handle}` : null;
    const now = new Date(this.o.clock.now());
    const linked = await this.o.repo.linkWithCode(sha256(code), now, chatId, from.id, name);
    if (linked === null) return this.replyLow(chatId, CODE_REFUSED);
    const { userId, displaced } = linked;
    this.o.deps.linkChanged?.(userId);
    await this.o.deps.activity?.(userId, {
      kind: 'telegram_linked',
      detail: { chat: name ?? 'a private chat' },
    });
    if (displaced !== null) await this.unlinked(displaced, 'relinked');
    const who = await this.o.repo.userOfChat(chatId);
    await this.reply(chatId, `Linked to ${who?.username ?? 'your account'}.\n${HELP_TEXT}`);
  }

  private async positions(userId: string): Promise<string> {
    try {
      const state = await this.o.trading.account(userId);
      return positionsText(await this.o.trading.positions(userId), state);
    } catch (err) {
      return problemText(err);
    }
  }

  private async pnl(userId: string): Promise<string> {
    try {
      const [state, balance, open] = await Promise.all([
        this.o.trading.account(userId),
        this.o.trading.balance(userId),
        this.o.trading.positions(userId),
      ]);
      return (
        `Unrealised P&L ${signedUsdt(balance.unrealizedPnl)} USDT on ${open.length} open position${open.length === 1 ? '' : 's'} ` +
        `(${venueText(state)}). Equity ${balance.equity.toFixed(2)} USDT, available ${balance.availableBalance.toFixed(2)} USDT.`
      );
    } catch (err) {
      return problemText(err);
    }
  }

  private async askFlatten(userId: string, chatId: number): Promise<void> {
    const state = await this.o.trading.account(userId);
    const keyboard = await this.keyboard(userId, [
      { label: 'Yes, close all', action: { kind: 'flatten' } },
      { label: 'No', action: { kind: 'cancel' } },
    ]);
    await this.reply(chatId, `Close every open position on ${venueText(state)}?`, { reply_markup: keyboard });
  }

  /** Orders on a key that is not paper need the user's telegram_live_orders setting. */
  private async allowed(userId: string, venue: OrderVenue): Promise<boolean> {
    return venue.mode === 'paper' || (await this.o.deps.liveOrdersAllowed(userId));
  }

  /**
   * A button press: only in the linked private chat, only from the Telegram user who linked it (checked
   * before the button is spent, so that nobody else can use it up), and only a button made for that user.
   */
  private async pressed(query: TgCallbackQuery): Promise<void> {
    const now = new Date(this.o.clock.now());
    const chat = query.message?.chat;
    const link = chat === undefined ? null : await this.o.repo.userOfChat(chat.id);
    if (chat === undefined || link === null || query.data === undefined) {
      await this.o.answerCallback(query.id, BUTTON_USED);
      return;
    }
    if (chat.type !== 'private' || link.telegramUserId !== query.from.id) {
      await this.o.answerCallback(query.id, NOT_THE_SENDER);
      return;
    }
    const chatId = chat.id;
    const hash = sha256(query.data);
    const taken = await this.o.repo.consumeAction(hash, now, link.userId);
    if (taken === null) {
      await this.o.answerCallback(query.id, BUTTON_USED);
      return;
    }
    await this.o.answerCallback(query.id);
    const text = await this.run(taken.userId, taken.action as BotAction, hash, chatId).catch(problemText);
    const message = query.message;
    // A question's buttons are spent once answered: its message now says what came of it.
    const kind = (taken.action as BotAction).kind;
    if (message !== undefined && (kind === 'answer' || kind === 'flatten' || kind === 'cancel')) {
      await this.edit(message, `${message.text ?? ''}\n\n${text}`.trim());
    } else {
      await this.reply(chatId, text);
    }
  }

  /** An order whose outcome the venue did not give: looked up by its key once it has had time to settle. */
  private lookUpLater(userId: string, key: string, chatId: number): void {
    this.o.clock.setTimer(() => {
      void this.o.trading
        .findOrder(userId, key)
        .then((fill) =>
          fill === null ? 'The order was not placed: the venue has no fill for it.' : fillText(fill),
        )
        .catch(
          () => 'The venue still does not say whether the order was placed. /positions shows what is open.',
        )
        .then((text) => this.reply(chatId, text))
        .catch((err: unknown) => this.o.log.warn({ reason: logReason(err) }, 'order look-up not told'));
    }, this.o.unknownLookupMs ?? UNKNOWN_SETTLE_MS);
  }

  private async run(userId: string, action: BotAction, hash: string, chatId: number): Promise<string> {
    const { trading, deps } = this.o;
    switch (action.kind) {
      case 'order': {
        const state = await trading.account(userId);
        if (!(await this.allowed(userId, state))) return LIVE_ORDERS_OFF;
        const key = `tg-${hash.slice(0, 40)}`;
        try {
          const fill = await trading.placeOrder(
            userId,
            { symbol: action.symbol, side: action.side, type: 'market', amount: action.amountUsd },
            key,
            state.account,
          );
          return fillText(fill);
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'OUTCOME_UNKNOWN')) throw err;
          // Not a failure: the order is looked up by its key, and what the venue says follows.
          this.lookUpLater(userId, key, chatId);
          return `${err.detail} It is being looked up; the answer follows here.`;
        }
      }
      case 'close': {
        const venue = await trading.venueOf(userId, action.account);
        if (!(await this.allowed(userId, venue))) return LIVE_ORDERS_OFF;
        const bare = (s: string) => s.replace('/', '').toUpperCase();
        const open = (await trading.positions(userId, action.account)).find(
          (p) => bare(p.symbol) === bare(action.symbol),
        );
        if (open === undefined) return `No open ${action.symbol} position on ${venueText(venue)}.`;
        const fill = await trading.reduce(userId, action.account, {
          symbol: action.symbol,
          opened: open.side,
          quantity: open.size,
          clientOrderId: `sc-tg-${hash.slice(0, 24)}`,
        });
        if (fill === null) return `No open ${action.symbol} position on ${venueText(venue)}.`;
        return `On ${venueText(fill.account)}: ${closedText(fill)}`;
      }
      case 'answer': {
        // A Confirm places the rule's order on the decision's account: a live or demo key needs the
        // setting, as every other order from the chat does; a Reject places nothing and is always taken.
        if (action.answer === 'confirm' && !(await this.confirmAllowed(userId, action.decisionId)))
          return CONFIRM_REFUSED;
        const answered = await deps.answerProposal(userId, action.decisionId, action.answer, 'telegram');
        return answered.message;
      }
      case 'flatten': {
        const state = await trading.account(userId);
        if (!(await this.allowed(userId, state))) return LIVE_ORDERS_OFF;
        const closed = await trading.closeAll(userId);
        if (closed.fills.length === 0) return closed.message;
        return [
          closed.message,
          ...closed.fills.map((f) => `${f.symbol}: ${f.quantity} at ${f.price} on ${venueText(f.account)}`),
        ].join('\n');
      }
      case 'cancel':
        return 'Nothing was closed.';
    }
  }
}
