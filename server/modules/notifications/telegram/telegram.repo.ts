import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import {
  telegramActions,
  telegramLinkCodes,
  telegramLinks,
  telegramOutbox,
} from '../../../db/schema/notifications';
import { users } from '../../../db/schema/users';

export interface LinkRow {
  userId: string;
  chatId: number;
  /** The Telegram user whose commands and presses the chat's link takes (null: none, so nobody's). */
  telegramUserId: number | null;
  username: string | null;
  linkedAt: Date;
}

/** How many lines to chats that are not linked may wait at once; more are not queued. */
export const LOW_QUEUE_MAX = 100;

export type OutboxRow = typeof telegramOutbox.$inferSelect;

/** The advisory lock that holds the bound of the low-priority queue (any constant unique in the app). */
const LOW_QUEUE_LOCK = 7_300_201;

/** SQL for the bot's tables (links, link codes, button actions, outbox); nothing else. */
export class TelegramRepo {
  constructor(private readonly db: Db) {}

  async linkOf(userId: string): Promise<LinkRow | null> {
    const [row] = await this.db.select().from(telegramLinks).where(eq(telegramLinks.userId, userId));
    return row ?? null;
  }

  /** The user a chat is linked to, with their name and the Telegram user who linked it. */
  async userOfChat(
    chatId: number,
  ): Promise<{ userId: string; username: string; telegramUserId: number | null } | null> {
    const [row] = await this.db
      .select({
        userId: telegramLinks.userId,
        username: users.username,
        telegramUserId: telegramLinks.telegramUserId,
      })
      .from(telegramLinks)
      .innerJoin(users, eq(users.id, telegramLinks.userId))
      .where(eq(telegramLinks.chatId, chatId));
    return row ?? null;
  }

  /**
   * Keeps a new link code for the user and voids every earlier one, under a lock on the user's row: of
   * any number of codes made at the same moment, the last one made is the only one that works.
   */
  async replaceCode(userId: string, codeHash: string, expiresAt: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
      await tx.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, userId));
      await tx.insert(telegramLinkCodes).values({ codeHash, userId, expiresAt });
    });
  }

  /**
   * Uses a code once and binds the chat, and the Telegram user who sent the code, to its user, in one
   * transaction: of any number of tries at the same moment exactly one gets the user back (the others find
   * the code used); an expired, voided or used code gets null and changes nothing. The user's other codes
   * are voided; `displaced` is the user whose link of this chat gave way, if another's.
   */
  async linkWithCode(
    codeHash: string,
    now: Date,
    chatId: number,
    telegramUserId: number,
    username: string | null,
  ): Promise<{ userId: string; displaced: string | null } | null> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .update(telegramLinkCodes)
        .set({ usedAt: now })
        .where(
          and(
            eq(telegramLinkCodes.codeHash, codeHash),
            isNull(telegramLinkCodes.usedAt),
            gt(telegramLinkCodes.expiresAt, now),
          ),
        )
        .returning({ userId: telegramLinkCodes.userId });
      const userId = rows[0]?.userId;
      if (userId === undefined) return null;
      await tx.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, userId));
      const gone = await tx
        .delete(telegramLinks)
        .where(or(eq(telegramLinks.userId, userId), eq(telegramLinks.chatId, chatId)))
        .returning({ userId: telegramLinks.userId });
      await tx.insert(telegramLinks).values({ userId, chatId, telegramUserId, username });
      return { userId, displaced: gone.find((g) => g.userId !== userId)?.userId ?? null };
    });
  }

  /**
   * Binds a private chat to the user: their earlier chat, and the chat's earlier user, are unlinked. The
   * sender it takes is the chat's own Telegram user (a private chat's id is its user's id) unless told.
   */
  async link(
    userId: string,
    chatId: number,
    username: string | null,
    telegramUserId = chatId,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx
        .delete(telegramLinks)
        .where(or(eq(telegramLinks.userId, userId), eq(telegramLinks.chatId, chatId)));
      await tx.insert(telegramLinks).values({ userId, chatId, telegramUserId, username });
    });
  }

  /** Unlinks the user's chat and voids their link codes; the chat the link named, or null when none. */
  async unlinkUser(userId: string): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      await tx.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, userId));
      const rows = await tx
        .delete(telegramLinks)
        .where(eq(telegramLinks.userId, userId))
        .returning({ chatId: telegramLinks.chatId });
      return rows[0]?.chatId ?? null;
    });
  }

  /** Unlinks a chat and voids its user's link codes; the user it was linked to, or null when none. */
  async unlinkChat(chatId: number): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .delete(telegramLinks)
        .where(eq(telegramLinks.chatId, chatId))
        .returning({ userId: telegramLinks.userId });
      const userId = rows[0]?.userId;
      if (userId === undefined) return null;
      await tx.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, userId));
      return userId;
    });
  }

  async addAction(tokenHash: string, userId: string, action: Record<string, unknown>, expiresAt: Date) {
    await this.db.insert(telegramActions).values({ tokenHash, userId, action, expiresAt });
  }

  /**
   * Uses a button's action of this user once, before it expires: of presses at the same moment one gets
   * it; another user's button is left as it was.
   */
  async consumeAction(
    tokenHash: string,
    now: Date,
    userId: string,
  ): Promise<{ userId: string; action: Record<string, unknown> } | null> {
    const rows = await this.db
      .update(telegramActions)
      .set({ usedAt: now })
      .where(
        and(
          eq(telegramActions.tokenHash, tokenHash),
          eq(telegramActions.userId, userId),
          isNull(telegramActions.usedAt),
          gt(telegramActions.expiresAt, now),
        ),
      )
      .returning({ userId: telegramActions.userId, action: telegramActions.action });
    return rows[0] ?? null;
  }

  /** Forgets actions and codes that expired before `before`. */
  async sweep(before: Date): Promise<void> {
    await this.db.delete(telegramActions).where(lte(telegramActions.expiresAt, before));
    await this.db.delete(telegramLinkCodes).where(lte(telegramLinkCodes.expiresAt, before));
  }

  /** Gives up the lines to unlinked chats due before `before` and still queued: an answer that late is noise. */
  async dropStaleLow(before: Date): Promise<void> {
    await this.db
      .update(telegramOutbox)
      .set({ state: 'dead', lastError: 'not sent in time' })
      .where(
        and(
          eq(telegramOutbox.state, 'queued'),
          eq(telegramOutbox.priority, 'low'),
          lte(telegramOutbox.notBefore, before),
        ),
      );
  }

  async enqueue(row: {
    chatId: number;
    method: string;
    params: Record<string, unknown>;
    ref?: string | null;
    notBefore: Date;
  }): Promise<number> {
    const [inserted] = await this.db
      .insert(telegramOutbox)
      .values({
        chatId: row.chatId,
        method: row.method,
        params: row.params,
        ref: row.ref ?? null,
        notBefore: row.notBefore,
      })
      .returning({ id: telegramOutbox.id });
    if (inserted === undefined) throw new Error('outbox row not written');
    return inserted.id;
  }

  /**
   * Queues a line to a chat that is not linked, at low priority, unless that chat has one waiting already
   * or `max` such lines wait in all (then it is dropped: false). The check and the insert hold one lock,
   * so the bound holds however many chats write at once.
   */
  async enqueueLow(
    row: { chatId: number; method: string; params: Record<string, unknown>; notBefore: Date },
    max = LOW_QUEUE_MAX,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${LOW_QUEUE_LOCK}::bigint)`);
      const queuedLow = and(eq(telegramOutbox.state, 'queued'), eq(telegramOutbox.priority, 'low'));
      const [waiting] = await tx
        .select({
          all: sql<number>`count(*)::int`,
          chat: sql<number>`count(*) filter (where ${telegramOutbox.chatId} = ${row.chatId})::int`,
        })
        .from(telegramOutbox)
        .where(queuedLow);
      if ((waiting?.chat ?? 0) > 0 || (waiting?.all ?? 0) >= max) return false;
      await tx.insert(telegramOutbox).values({
        chatId: row.chatId,
        method: row.method,
        params: row.params,
        priority: 'low',
        notBefore: row.notBefore,
      });
      return true;
    });
  }

  /**
   * Each chat's first queued row (a chat's messages go in order): the linked chats' messages before the
   * lines to strangers, then the oldest first.
   */
  async heads(limit: number): Promise<OutboxRow[]> {
    const firsts = this.db
      .select({ id: sql<number>`min(${telegramOutbox.id})`.as('id') })
      .from(telegramOutbox)
      .where(eq(telegramOutbox.state, 'queued'))
      .groupBy(telegramOutbox.chatId);
    return this.db
      .select()
      .from(telegramOutbox)
      .where(inArray(telegramOutbox.id, firsts))
      .orderBy(sql`${telegramOutbox.priority} = 'low'`, asc(telegramOutbox.notBefore), asc(telegramOutbox.id))
      .limit(limit);
  }

  /** The message last sent to the chat about `ref`, to edit. */
  async sentMessageOf(chatId: number, ref: string): Promise<number | null> {
    const [row] = await this.db
      .select({ messageId: telegramOutbox.messageId })
      .from(telegramOutbox)
      .where(
        and(
          eq(telegramOutbox.chatId, chatId),
          eq(telegramOutbox.ref, ref),
          isNotNull(telegramOutbox.messageId),
        ),
      )
      .orderBy(desc(telegramOutbox.id))
      .limit(1);
    return row?.messageId ?? null;
  }

  async sent(id: number, at: Date, messageId: number | null): Promise<void> {
    await this.db
      .update(telegramOutbox)
      .set({ state: 'sent', sentAt: at, messageId, attempts: sql`${telegramOutbox.attempts} + 1` })
      .where(eq(telegramOutbox.id, id));
  }

  /** Stays queued, tried again from `notBefore`. */
  async retry(id: number, notBefore: Date, error: string, counts: boolean): Promise<void> {
    await this.db
      .update(telegramOutbox)
      .set({
        notBefore,
        lastError: error,
        ...(counts ? { attempts: sql`${telegramOutbox.attempts} + 1` } : {}),
      })
      .where(eq(telegramOutbox.id, id));
  }

  async dead(id: number, error: string): Promise<void> {
    await this.db
      .update(telegramOutbox)
      .set({ state: 'dead', lastError: error, attempts: sql`${telegramOutbox.attempts} + 1` })
      .where(eq(telegramOutbox.id, id));
  }

  /** Everything still queued for a chat that blocked the bot: it would never go out. */
  async deadForChat(chatId: number, error: string): Promise<void> {
    await this.db
      .update(telegramOutbox)
      .set({ state: 'dead', lastError: error })
      .where(and(eq(telegramOutbox.chatId, chatId), eq(telegramOutbox.state, 'queued')));
  }
}
