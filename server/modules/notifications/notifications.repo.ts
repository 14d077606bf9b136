import { and, count, desc, eq, gte, inArray, lt, ne, sql } from 'drizzle-orm';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
  type NotificationSettingsPatch,
} from '../../../src/contracts/notifications';
import type { Db } from '../../db/client';
import {
  notificationSettings,
  pushSubscriptions,
  serverKeys,
  telegramLinks,
} from '../../db/schema/notifications';
import { ruleDecisions } from '../../db/schema/rules';
import { trades } from '../../db/schema/trading';
import { users } from '../../db/schema/users';

type SettingsRow = typeof notificationSettings.$inferSelect;

/** The columns of each setting, by the contract's name. */
const COLUMNS = {
  alerts: 'alerts',
  alert_threshold: 'alertThreshold',
  fills: 'fills',
  retractions: 'retractions',
  liquidation: 'liquidation',
  daily_pnl: 'dailyPnl',
  telegram_live_orders: 'telegramLiveOrders',
} as const satisfies Record<keyof NotificationSettings, keyof SettingsRow>;

export function toSettings(row: SettingsRow | undefined | null): NotificationSettings {
  if (row === undefined || row === null) return { ...DEFAULT_NOTIFICATION_SETTINGS };
  return {
    alerts: row.alerts,
    alert_threshold: row.alertThreshold,
    fills: row.fills,
    retractions: row.retractions,
    liquidation: row.liquidation,
    daily_pnl: row.dailyPnl,
    telegram_live_orders: row.telegramLiveOrders,
  };
}

export interface PushSubscriptionRow {
  id: string;
  userId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** A user the dispatcher may reach, with their settings. */
export interface Reachable {
  userId: string;
  settings: NotificationSettings;
}

/** SQL for the notifications tables (and the few reads of the trading ledgers notes are made from). */
export class NotificationsRepo {
  constructor(private readonly db: Db) {}

  async settings(userId: string): Promise<NotificationSettings> {
    const [row] = await this.db
      .select()
      .from(notificationSettings)
      .where(eq(notificationSettings.userId, userId));
    return toSettings(row);
  }

  /**
   * Applies a partial change in one statement (an insert of the defaults plus the change, or an update of
   * the changed columns only), so that concurrent changes of different settings all land.
   */
  async patch(userId: string, patch: NotificationSettingsPatch): Promise<NotificationSettings> {
    const set: Partial<SettingsRow> = {};
    for (const [key, column] of Object.entries(COLUMNS) as [
      keyof NotificationSettings,
      keyof SettingsRow,
    ][]) {
      const value = patch[key];
      if (value !== undefined) (set as Record<string, unknown>)[column] = value;
    }
    const [row] = await this.db
      .insert(notificationSettings)
      .values({ userId, ...set })
      .onConflictDoUpdate({
        target: notificationSettings.userId,
        set: { ...set, updatedAt: sql`now()` },
      })
      .returning();
    return toSettings(row);
  }

  /**
   * Every user with a Telegram chat or a push subscription, with their settings: the only users the
   * dispatcher does any work for.
   */
  async reachable(userId?: string): Promise<Reachable[]> {
    const withPush = this.db.selectDistinct({ userId: pushSubscriptions.userId }).from(pushSubscriptions);
    const withChat = this.db.select({ userId: telegramLinks.userId }).from(telegramLinks);
    const users =
      userId === undefined
        ? withPush.union(withChat)
        : withPush
            .where(eq(pushSubscriptions.userId, userId))
            .union(withChat.where(eq(telegramLinks.userId, userId)));
    const ids = (await users).map((r) => r.userId);
    if (ids.length === 0) return [];
    const rows = await this.db
      .select()
      .from(notificationSettings)
      .where(inArray(notificationSettings.userId, ids));
    const byUser = new Map(rows.map((r) => [r.userId, r]));
    return ids.map((id) => ({ userId: id, settings: toSettings(byUser.get(id)) }));
  }

  async subscriptions(userId: string): Promise<PushSubscriptionRow[]> {
    return this.db
      .select({
        id: pushSubscriptions.id,
        userId: pushSubscriptions.userId,
        endpoint: pushSubscriptions.endpoint,
        p256dh: pushSubscriptions.p256dh,
        auth: pushSubscriptions.auth,
      })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, userId));
  }

  async subscriptionCount(userId: string): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, userId));
    return row?.n ?? 0;
  }

  /**
   * One row per endpoint: a browser that subscribes again (new keys, or another user) replaces its row.
   * The user keeps at most `max` rows: the oldest others give way (their endpoints are answered). The
   * user's row is locked first, so that however many subscribe at once the bound holds.
   */
  async saveSubscription(
    userId: string,
    sub: { endpoint: string; p256dh: string; auth: string },
    userAgent: string | null,
    max: number,
  ): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
      const [saved] = await tx
        .insert(pushSubscriptions)
        .values({ userId, ...sub, userAgent })
        .onConflictDoUpdate({
          target: pushSubscriptions.endpoint,
          set: {
            userId,
            p256dh: sub.p256dh,
            auth: sub.auth,
            userAgent,
            createdAt: sql`now()`,
            lastOkAt: null,
          },
        })
        .returning({ id: pushSubscriptions.id });
      if (saved === undefined) throw new Error('push subscription not written');
      const others = await tx
        .select({ id: pushSubscriptions.id, endpoint: pushSubscriptions.endpoint })
        .from(pushSubscriptions)
        .where(and(eq(pushSubscriptions.userId, userId), ne(pushSubscriptions.id, saved.id)))
        .orderBy(desc(pushSubscriptions.createdAt), desc(pushSubscriptions.id));
      const evicted = others.slice(Math.max(0, max - 1));
      if (evicted.length > 0) {
        await tx.delete(pushSubscriptions).where(
          inArray(
            pushSubscriptions.id,
            evicted.map((r) => r.id),
          ),
        );
      }
      return evicted.map((r) => r.endpoint);
    });
  }

  /** True when the user had that subscription. */
  async removeSubscription(userId: string, endpoint: string): Promise<boolean> {
    const rows = await this.db
      .delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)))
      .returning({ id: pushSubscriptions.id });
    return rows.length > 0;
  }

  /** The push service said the subscription is gone (404/410). */
  async dropSubscription(id: string): Promise<void> {
    await this.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id));
  }

  async subscriptionOk(id: string): Promise<void> {
    await this.db
      .update(pushSubscriptions)
      .set({ lastOkAt: sql`now()` })
      .where(eq(pushSubscriptions.id, id));
  }

  async serverKey(name: string): Promise<{ publicKey: string; privateKeySealed: string } | null> {
    const [row] = await this.db
      .select({ publicKey: serverKeys.publicKey, privateKeySealed: serverKeys.privateKeySealed })
      .from(serverKeys)
      .where(eq(serverKeys.name, name));
    return row ?? null;
  }

  /** Keeps the first pair made: a process that loses the race reads the winner's. */
  async saveServerKey(name: string, publicKey: string, privateKeySealed: string): Promise<void> {
    await this.db.insert(serverKeys).values({ name, publicKey, privateKeySealed }).onConflictDoNothing();
  }

  /** The account ('paper' or a key id) a decision of this user places on, or null when it is not theirs. */
  async decisionAccount(userId: string, decisionId: string): Promise<string | null> {
    const id = Number(decisionId);
    if (!Number.isSafeInteger(id) || id <= 0) return null;
    const [row] = await this.db
      .select({ account: ruleDecisions.account })
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.id, id), eq(ruleDecisions.userId, userId)));
    return row?.account ?? null;
  }

  /** The users whose rules fired on a signal (the ones a retraction of it concerns). */
  async tradersOf(signalId: number): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ userId: ruleDecisions.userId })
      .from(ruleDecisions)
      .where(and(eq(ruleDecisions.signalId, signalId), eq(ruleDecisions.outcome, 'fired')));
    return rows.map((r) => r.userId);
  }

  /**
   * The positions rules opened on a signal and nothing closed yet: whose, on which asset and symbol,
   * and on which account (what a question about the story offers to close).
   */
  async openOn(
    signalId: number,
  ): Promise<{ userId: string; asset: string; symbol: string; account: string }[]> {
    if (!Number.isSafeInteger(signalId)) return [];
    return this.db
      .selectDistinct({
        userId: ruleDecisions.userId,
        asset: ruleDecisions.asset,
        symbol: ruleDecisions.symbol,
        account: ruleDecisions.account,
      })
      .from(ruleDecisions)
      .where(
        and(
          eq(ruleDecisions.signalId, signalId),
          eq(ruleDecisions.outcome, 'fired'),
          // Still held: not closed yet, whether or not a close is under way.
          inArray(ruleDecisions.exitState, ['open', 'closing']),
        ),
      );
  }

  /** Realised PnL and fees of a user's fills in [from, to), on every account. */
  async pnlBetween(
    userId: string,
    from: Date,
    to: Date,
  ): Promise<{ pnl: number; fees: number; fills: number }> {
    const [row] = await this.db
      .select({
        pnl: sql<string>`coalesce(sum(${trades.realizedPnl}), 0)`,
        fees: sql<string>`coalesce(sum(${trades.fee}), 0)`,
        fills: count(),
      })
      .from(trades)
      .where(and(eq(trades.userId, userId), gte(trades.createdAt, from), lt(trades.createdAt, to)));
    return { pnl: Number(row?.pnl ?? 0), fees: Number(row?.fees ?? 0), fills: row?.fills ?? 0 };
  }
}
