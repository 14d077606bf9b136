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
import type { ActivityEvent } from '../../activity/activity.service';
import type { Note, NoteAction } from '../channels';
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

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** 32 characters of A-Z a-z 0-9 _ -: fits a deep link's payload and a button's 64 bytes. */
const token = () => randomBytes(24).toString('base64url');

/**
 * The bot as the rest of the app asks it: a link code for `/start`, an unlink from the browser, a note's
 * buttons kept to those the chat may run (Telegram live orders), and the single-use buttons themselves.
 * What it does with an update from a chat is telegram-updates.ts. Every message goes through the outbox.
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

  /** A message to a chat, through the outbox. */
  reply(chatId: number, text: string, extra: Record<string, unknown> = {}): Promise<void> {
    return this.o.send({ chatId, method: 'sendMessage', params: { text, ...extra } });
  }

  /** Orders on a key that is not paper need the user's telegram_live_orders setting. */
  async allowed(userId: string, venue: OrderVenue): Promise<boolean> {
    return venue.mode === 'paper' || (await this.o.deps.liveOrdersAllowed(userId));
  }
}
