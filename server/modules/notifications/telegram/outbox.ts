import { every, type Clock, type Disposer } from '../../market/clock';
import { BotApiError, BotApiUnreachable } from './bot-api';
import { logReason } from './log-reason';
import type { OutboxRow, TelegramRepo } from './telegram.repo';

export interface OutboxLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface OutboxOptions {
  repo: TelegramRepo;
  api: { call<T>(method: string, params: Record<string, unknown>): Promise<T> };
  clock: Clock;
  log: OutboxLog;
  /** The chat blocked the bot (403): its link goes. */
  onBlocked(chatId: number): Promise<void>;
  /** Messages per second for the whole bot (Telegram's bot FAQ: about 30). */
  perSecond?: number;
  /** Of those, at most this many lines to unlinked chats, and only what the linked chats leave (10). */
  lowPerSecond?: number;
  /** Least time between two messages to one chat (about 1 per second). */
  perChatMs?: number;
  /** How often the queue is looked at. */
  tickMs?: number;
  /** Longest wait between tries while Telegram is unreachable. */
  maxBackoffMs?: number;
}

/** A message the bot would send, before it is queued. */
export interface Outgoing {
  chatId: number;
  method: 'sendMessage' | 'editMessageText';
  params: Record<string, unknown>;
  ref?: string | null;
}

/**
 * Every message the bot sends, persisted first (`telegram_outbox`) and sent by the process holding the
 * bot's lease at Telegram's pace: at most `perSecond` overall and one per `perChatMs` per chat, each
 * chat's in the order queued. A 429 waits its `retry_after`; an unreachable Telegram or a 5xx keeps the
 * row queued and tries again with a growing pause (nothing is lost during an outage); a chat that blocked
 * the bot is unlinked; only a request Telegram refuses for good (400) is given up ('dead').
 */
export class Outbox {
  private readonly lastByChat = new Map<number, number>();
  private sentTimes: number[] = [];
  private lowTimes: number[] = [];
  private pumping: Promise<void> | null = null;
  private again = false;
  /** After a 429 nothing is sent before this (ms): Telegram's flood control is the bot's, not a chat's. */
  private pausedUntil = 0;
  private readonly perSecond: number;
  private readonly lowPerSecond: number;
  private readonly perChatMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly o: OutboxOptions) {
    this.perSecond = o.perSecond ?? 30;
    this.lowPerSecond = o.lowPerSecond ?? 10;
    this.perChatMs = o.perChatMs ?? 1000;
    this.maxBackoffMs = o.maxBackoffMs ?? 60_000;
  }

  /** Queues a message; any process may, the lease holder sends it. */
  async enqueue(message: Outgoing): Promise<void> {
    await this.o.repo.enqueue({ ...message, notBefore: new Date(this.o.clock.now()) });
  }

  /**
   * Queues a line to a chat that is not linked, behind every linked chat's message; false when it was
   * dropped (that chat has one waiting, or the low queue is full).
   */
  async enqueueLow(message: Omit<Outgoing, 'ref'>): Promise<boolean> {
    return this.o.repo.enqueueLow({ ...message, notBefore: new Date(this.o.clock.now()) });
  }

  /** Sends what is due on every tick until the returned disposer runs. */
  start(): Disposer {
    const stop = every(this.o.clock, this.o.tickMs ?? 200, () => void this.kick());
    void this.kick();
    return stop;
  }

  /** One pass now (or right after the one under way); never throws. */
  kick(): Promise<void> {
    if (this.pumping !== null) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.again = false;
        await this.pump().catch((err: unknown) =>
          this.o.log.warn({ reason: logReason(err) }, 'telegram outbox pass failed'),
        );
      } while (this.again);
    })().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  /** Sends each chat's first row that is due and whose chat and the bot are under their limits. */
  private async pump(): Promise<void> {
    const now = this.o.clock.now();
    if (now < this.pausedUntil) return;
    this.sentTimes = this.sentTimes.filter((t) => t > now - 1000);
    this.lowTimes = this.lowTimes.filter((t) => t > now - 1000);
    const budget = this.perSecond - this.sentTimes.length;
    if (budget <= 0) return;
    const heads = await this.o.repo.heads(200);
    const ready = heads.filter(
      (row) =>
        row.notBefore.getTime() <= now &&
        (this.lastByChat.get(row.chatId) ?? Number.NEGATIVE_INFINITY) + this.perChatMs <= now,
    );
    // Linked chats' messages first; lines to strangers only from what is left, a few a second.
    const normal = ready.filter((row) => row.priority !== 'low').slice(0, budget);
    const lowRoom = Math.min(budget - normal.length, this.lowPerSecond - this.lowTimes.length);
    const low = lowRoom > 0 ? ready.filter((row) => row.priority === 'low').slice(0, lowRoom) : [];
    const due = [...normal, ...low];
    for (const row of due) {
      this.sentTimes.push(now);
      if (row.priority === 'low') this.lowTimes.push(now);
      this.lastByChat.set(row.chatId, now);
    }
    await Promise.all(due.map((row) => this.send(row, now)));
  }

  private async send(row: OutboxRow, now: number): Promise<void> {
    const { repo, api } = this.o;
    let method: string = row.method;
    let params = row.params;
    // An edit names its message by the ref: the message sent about it earlier (none: a new message).
    if (method === 'editMessageText' && params.message_id === undefined) {
      const messageId = row.ref === null ? null : await repo.sentMessageOf(row.chatId, row.ref);
      if (messageId === null) {
        method = 'sendMessage';
      } else {
        params = { ...params, message_id: messageId };
      }
    }
    try {
      const result = await api.call<{ message_id?: number } | true>(method, {
        chat_id: row.chatId,
        ...params,
      });
      const messageId =
        typeof result === 'object' && typeof result.message_id === 'number'
          ? result.message_id
          : typeof params.message_id === 'number'
            ? params.message_id
            : null;
      await repo.sent(row.id, new Date(now), messageId);
    } catch (err) {
      await this.failed(row, err, now);
    }
  }

  private async failed(row: OutboxRow, err: unknown, now: number): Promise<void> {
    const { repo, log } = this.o;
    const backoff = () => new Date(now + Math.min(1000 * 2 ** row.attempts, this.maxBackoffMs));
    if (err instanceof BotApiError) {
      if (err.status === 429) {
        const until = now + (err.retryAfter ?? 1) * 1000;
        this.pausedUntil = Math.max(this.pausedUntil, until);
        await repo.retry(row.id, new Date(until), err.message, false);
      } else if (err.status === 403) {
        // "Forbidden: bot was blocked by the user" (or kicked from the group): nothing reaches it any more.
        await this.o.onBlocked(row.chatId);
        await repo.dead(row.id, err.message);
        await repo.deadForChat(row.chatId, 'the chat blocked the bot');
        log.info({ chat: row.chatId }, 'telegram chat blocked the bot; unlinked');
      } else if (err.status === 400 && /message is not modified/i.test(err.description)) {
        await repo.sent(row.id, new Date(now), null);
      } else if (err.status === 400 || err.status === 404) {
        await repo.dead(row.id, err.message);
        log.warn({ chat: row.chatId, method: row.method, reason: err.message }, 'telegram message refused');
      } else {
        // 5xx, or 401 (a token being replaced): the message is fine, Telegram is not; try again later.
        await repo.retry(row.id, backoff(), err.message, true);
      }
      return;
    }
    const reason = err instanceof BotApiUnreachable ? err.message : 'send failed';
    await repo.retry(row.id, backoff(), reason, true);
    if (row.attempts === 0 || row.attempts % 10 === 0)
      log.warn({ reason }, 'telegram unreachable; message kept');
  }
}
