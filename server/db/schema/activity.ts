import { bigserial, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

/** Module activity: what happened to each account (sign-ins, security changes, keys, plan), newest read first. */
export const accountActivity = pgTable(
  'account_activity',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    kind: text('kind').notNull(),
    /** What the line says beyond its kind: the method, the key's hint, the plan… never a secret. */
    detail: jsonb('detail').$type<Record<string, string>>().notNull().default({}),
    device: text('device'),
    place: text('place'),
    /** The device's fingerprint (a hash), to notice a sign-in from a device not seen before. */
    fingerprint: text('fingerprint'),
  },
  (t) => [index('account_activity_user_at_idx').on(t.userId, t.at)],
);
