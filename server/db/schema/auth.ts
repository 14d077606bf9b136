import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/** What a browser said about itself when it was remembered (docs/product.md §3 Remembered device). */
export interface StoredDeviceInfo {
  browser: string;
  os: string;
  /** Approximate, from the browser's time zone (e.g. "Berlin, Europe"); no network look-up. */
  place?: string;
}

/** Module auth. Every token is stored as its SHA-256 hash; the TOTP secret is AES-256-GCM encrypted. */

/** How a sign-in proved who it was: what started a refresh family (or a remembered device). */
export const SIGN_IN_METHODS = [
  'password',
  'two_factor',
  'wallet',
  'google',
  'twitter',
  'remembered',
] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** Remember-me devices: a long-lived device token exchanged for a session by `POST /auth/auto-login`. */
export const rememberedDevices = pgTable(
  'remembered_devices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    deviceInfo: jsonb('device_info').$type<StoredDeviceInfo>().notNull(),
    fingerprint: text('device_fingerprint').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The identity (wallet, Google, Twitter) whose sign-in remembered the device, null for a password:
     * unlinking it forgets the device too. Not a foreign key, so that it outlives the identity's row.
     */
    identityId: uuid('identity_id'),
  },
  (t) => [
    uniqueIndex('remembered_devices_token_idx').on(t.tokenHash),
    index('remembered_devices_user_idx').on(t.userId),
  ],
);

/**
 * Refresh tokens. Each login starts a family; each refresh marks the presented token rotated and adds
 * its successor. A rotated token presented again revokes the whole family.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: uuid('family_id').notNull(),
    deviceId: uuid('device_id').references(() => rememberedDevices.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull(),
    /** The cookie outlives the browser session (remember-me). */
    persistent: boolean('persistent').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * What started the family (every token of it carries the same): the method, and the identity
     * (wallet, Google, Twitter) it signed in with. Unlinking an identity ends the families it started.
     * Null on families started before this was recorded.
     */
    signInMethod: text('sign_in_method', { enum: SIGN_IN_METHODS }),
    identityId: uuid('identity_id'),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_idx').on(t.tokenHash),
    index('refresh_tokens_family_idx').on(t.familyId),
    index('refresh_tokens_user_idx').on(t.userId),
    index('refresh_tokens_identity_idx').on(t.identityId),
  ],
);

/**
 * Sign-ins confirmed recently (a password or 2FA code asked again, or the sign-in itself): sensitive
 * actions of the sign-in (refresh family) pass until `confirmed_until`. Kept here, not in a process, so
 * every server process sees the same answer.
 */
export const stepUps = pgTable(
  'step_ups',
  {
    familyId: uuid('family_id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    confirmedUntil: timestamp('confirmed_until', { withTimezone: true }).notNull(),
  },
  (t) => [index('step_ups_user_idx').on(t.userId)],
);

/** A password login waiting for its second factor: 5 minutes, 5 tries. */
export const loginChallenges = pgTable(
  'login_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * SHA-256 of the opaque, single-use challenge the password step hands out (in the answer's
     * `user_id`): the second step is looked up by it, so knowing a user's id spends none of their tries.
     */
    tokenHash: text('token_hash').unique(),
    rememberMe: boolean('remember_me').notNull(),
    deviceInfo: jsonb('device_info').$type<StoredDeviceInfo>().notNull(),
    fingerprint: text('device_fingerprint').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** How the first step signed in (and with which identity): the session it finishes records it. */
    signInMethod: text('sign_in_method', { enum: SIGN_IN_METHODS }),
    identityId: uuid('identity_id'),
  },
  (t) => [index('login_challenges_user_idx').on(t.userId)],
);

/** Single-use password reset tokens, valid one hour. */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('password_resets_token_idx').on(t.tokenHash)],
);

/** The TOTP secret (encrypted), whether it is enabled, and the last time step used (no replays). */
export const twoFactor = pgTable('two_factor', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEnc: text('secret_enc').notNull(),
  enabled: boolean('enabled').notNull().default(false),
  lastStep: bigint('last_step', { mode: 'number' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One-time recovery codes, stored as keyed hashes. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('recovery_codes_user_code_idx').on(t.userId, t.codeHash)],
);

/**
 * Socket tickets: a browser trades its access token for one of these (30 s, single use) and opens a
 * socket with it, so no access token ever travels in a URL. Redeeming deletes the row: a ticket opens
 * one socket, whichever server process receives it.
 */
export const socketTickets = pgTable(
  'socket_tickets',
  {
    ticketHash: text('ticket_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['user', 'admin'] }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The sign-in the ticket was taken for, and when its access token expires: the socket lives no longer. */
    familyId: text('family_id'),
    sessionExpiresAt: timestamp('session_expires_at', { withTimezone: true }),
  },
  (t) => [index('socket_tickets_expires_idx').on(t.expiresAt)],
);

/**
 * When the owner of an address was last told that someone tried to sign up with it: sign-up answers a
 * taken address as it answers a new one and mails the owner instead, at most once an hour, whichever
 * server process took the sign-up.
 */
export const signupNotices = pgTable('signup_notices', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  mailedAt: timestamp('mailed_at', { withTimezone: true }).notNull(),
});
