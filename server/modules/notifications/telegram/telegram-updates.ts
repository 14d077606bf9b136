import { AppError } from '../../../plugins/errors';
import { closedText, signedUsdt } from '../../trading/trade-log';
import { UNKNOWN_SETTLE_MS } from '../../trading/trading.service';
import type { TgCallbackQuery, TgMessage, TgUpdate } from './bot-api';
import { fillText, HELP_TEXT, HOW_TO_LINK, positionsText, venueText } from './format';
import { logReason } from './log-reason';
import {
  BUTTON_USED,
  CODE_REFUSED,
  CONFIRM_REFUSED,
  LIVE_ORDERS_OFF,
  NOT_THE_SENDER,
  PRIVATE_ONLY,
  sha256,
  type BotAction,
  type TelegramBot,
  type TelegramBotOptions,
} from './telegram-bot';

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
export class TelegramUpdates {
  constructor(
    private readonly bot: TelegramBot,
    private readonly o: TelegramBotOptions,
  ) {}

  async handle(update: TgUpdate): Promise<void> {
    try {
      if (update.callback_query !== undefined) await this.pressed(update.callback_query);
      else if (update.message !== undefined) await this.message(update.message);
    } catch (err) {
      this.o.log.warn({ update: update.update_id, reason: logReason(err) }, 'telegram update not handled');
    }
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
        return this.bot.reply(chatId, await this.positions(userId));
      case 'pnl':
        return this.bot.reply(chatId, await this.pnl(userId));
      case 'rules':
        if (rest[0]?.toLowerCase() !== 'off') return this.bot.reply(chatId, 'Usage: /rules off');
        return this.bot.reply(chatId, await this.o.deps.turnRulesOff(userId).catch(problemText));
      case 'flatten':
        return this.askFlatten(userId, chatId);
      case 'unlink':
        if ((await this.o.repo.unlinkChat(chatId)) !== null) await this.bot.unlinked(userId, 'chat');
        return this.bot.reply(
          chatId,
          'Unlinked. Nothing more will be sent here; link again from the console.',
        );
      case 'start':
        return this.bot.reply(chatId, `Linked to ${linked.username}.\n${HELP_TEXT}`);
      case 'help':
        return this.bot.reply(chatId, HELP_TEXT);
      default:
        return this.bot.reply(chatId, `Unknown command.\n${HELP_TEXT}`);
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
    if (displaced !== null) await this.bot.unlinked(displaced, 'relinked');
    const who = await this.o.repo.userOfChat(chatId);
    await this.bot.reply(chatId, `Linked to ${who?.username ?? 'your account'}.\n${HELP_TEXT}`);
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
    const keyboard = await this.bot.keyboard(userId, [
      { label: 'Yes, close all', action: { kind: 'flatten' } },
      { label: 'No', action: { kind: 'cancel' } },
    ]);
    await this.bot.reply(chatId, `Close every open position on ${venueText(state)}?`, {
      reply_markup: keyboard,
    });
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
      await this.bot.reply(chatId, text);
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
        .then((text) => this.bot.reply(chatId, text))
        .catch((err: unknown) => this.o.log.warn({ reason: logReason(err) }, 'order look-up not told'));
    }, this.o.unknownLookupMs ?? UNKNOWN_SETTLE_MS);
  }

  private async run(userId: string, action: BotAction, hash: string, chatId: number): Promise<string> {
    const { trading, deps } = this.o;
    switch (action.kind) {
      case 'order': {
        const state = await trading.account(userId);
        if (!(await this.bot.allowed(userId, state))) return LIVE_ORDERS_OFF;
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
        if (!(await this.bot.allowed(userId, venue))) return LIVE_ORDERS_OFF;
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
        if (action.answer === 'confirm' && !(await this.bot.confirmAllowed(userId, action.decisionId)))
          return CONFIRM_REFUSED;
        const answered = await deps.answerProposal(userId, action.decisionId, action.answer, 'telegram');
        return answered.message;
      }
      case 'flatten': {
        const state = await trading.account(userId);
        if (!(await this.bot.allowed(userId, state))) return LIVE_ORDERS_OFF;
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
