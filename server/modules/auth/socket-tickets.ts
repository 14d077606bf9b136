import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { socketTickets } from '../../db/schema';
import type { Principal } from '../../plugins/auth-guard';
import { randomToken, sha256 } from './crypto';

/** How long a socket ticket can wait before it is used. */
export const SOCKET_TICKET_TTL_MS = 30 * 1000;

/** Short-lived, single-use tickets that authenticate a socket (stored hashed; redeeming deletes them). */
export class SocketTickets {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
    /** Whether the sign-in a ticket was issued for has ended since (logout, revocation). */
    private readonly sessionEnded: (familyId: string) => Promise<boolean> = async () => false,
  ) {}

  /** A new ticket for the principal; expired tickets are swept on the way. */
  async issue(principal: Principal): Promise<string> {
    const now = this.now();
    await this.db.delete(socketTickets).where(lte(socketTickets.expiresAt, now));
    const ticket = randomToken();
    await this.db.insert(socketTickets).values({
      ticketHash: sha256(ticket),
      userId: principal.userId,
      role: principal.role,
      expiresAt: new Date(now.getTime() + SOCKET_TICKET_TTL_MS),
      familyId: principal.familyId ?? null,
      sessionExpiresAt: principal.expiresAt === undefined ? null : new Date(principal.expiresAt),
    });
    return ticket;
  }

  /**
   * The ticket's principal, once: the row is deleted as it is read. Null for unknown or expired, and for
   * a ticket of a sign-in that has ended.
   */
  async redeem(ticket: string): Promise<Principal | null> {
    const [row] = await this.db
      .delete(socketTickets)
      .where(and(eq(socketTickets.ticketHash, sha256(ticket)), gt(socketTickets.expiresAt, this.now())))
      .returning();
    if (row === undefined) return null;
    // A ticket issued before a logout opens nothing after it.
    if (row.familyId !== null && (await this.sessionEnded(row.familyId))) return null;
    return {
      userId: row.userId,
      role: row.role,
      ...(row.familyId === null ? {} : { familyId: row.familyId }),
      ...(row.sessionExpiresAt === null ? {} : { expiresAt: row.sessionExpiresAt.getTime() }),
    };
  }
}
