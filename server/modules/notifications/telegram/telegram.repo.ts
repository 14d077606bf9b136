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
  username: string | null;
  linkedAt: Date;
}

export type OutboxRow = typeof telegramOutbox.$inferSelect;

/** SQL for the bot's tables (links, link codes, button actions, outbox); nothing else. */
export class TelegramRepo {
  constructor(private readonly db: Db) {}

  async linkOf(userId: string): Promise<LinkRow | null> {
    const [row] = await this.db.select().from(telegramLinks).where(eq(telegramLinks.userId, userId));
    return row ?? null;
  }

  /** The user a chat is linked to, with their name. */
  async userOfChat(chatId: number): Promise<{ userId: string; username: string } | null> {
    const [row] = await this.db
      .select({ userId: telegramLinks.userId, username: users.username })
      .from(telegramLinks)
      .innerJoin(users, eq(users.id, telegramLinks.userId))
      .where(eq(telegramLinks.chatId, chatId));
    return row ?? null;
  }

  async addCode(userId: string, codeHash: string, expiresAt: Date): Promise<void> {
    await this.db.insert(telegramLinkCodes).values({ codeHash, userId, expiresAt });
  }

  /**
   * Uses a code once and binds the chat to its user, in one transaction: of any number of tries at the
   * same moment exactly one gets the user back (the others find the code used); an expired or used code
   * gets null and changes nothing.
   */
  async linkWithCode(
    codeHash: string,
    now: Date,
    chatId: number,
    username: string | null,
  ): Promise<string | null> {
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
      await tx
        .delete(telegramLinks)
        .where(or(eq(telegramLinks.userId, userId), eq(telegramLinks.chatId, chatId)));
      await tx.insert(telegramLinks).values({ userId, chatId, username });
      return userId;
    });
  }

  /** Binds the chat to the user: their earlier chat, and the chat's earlier user, are unlinked. */
  async link(userId: string, chatId: number, username: string | null): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx
        .delete(telegramLinks)
        .where(or(eq(telegramLinks.userId, userId), eq(telegramLinks.chatId, chatId)));
      await tx.insert(telegramLinks).values({ userId, chatId, username });
    });
  }

  /** The chat the user's link named, or null when there was none. */
  async unlinkUser(userId: string): Promise<number | null> {
    const rows = await this.db
      .delete(telegramLinks)
      .where(eq(telegramLinks.userId, userId))
      .returning({ chatId: telegramLinks.chatId });
    return rows[0]?.chatId ?? null;
  }

  async unlinkChat(chatId: number): Promise<boolean> {
    const rows = await this.db
      .delete(telegramLinks)
      .where(eq(telegramLinks.chatId, chatId))
      .returning({ chatId: telegramLinks.chatId });
    return rows.length > 0;
  }

  async addAction(tokenHash: string, userId: string, action: Record<string, unknown>, expiresAt: Date) {
    await this.db.insert(telegramActions).values({ tokenHash, userId, action, expiresAt });
  }

  /** Uses a button's action once, before it expires: of presses at the same moment one gets it. */
  async consumeAction(
    tokenHash: string,
    now: Date,
  ): Promise<{ userId: string; action: Record<string, unknown> } | null> {
    const rows = await this.db
      .update(telegramActions)
      .set({ usedAt: now })
      .where(
        and(
          eq(telegramActions.tokenHash, tokenHash),
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

  /** Each chat's first queued row (a chat's messages go in order), oldest chats first. */
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
      .orderBy(asc(telegramOutbox.notBefore), asc(telegramOutbox.id))
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
