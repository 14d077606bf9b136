import { desc } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { adminAudit } from '../../db/schema';

export type AuditRow = typeof adminAudit.$inferSelect;

/** SQL for the audit log; nothing else. */
export class AdminRepo {
  constructor(private readonly db: Db) {}

  async record(row: typeof adminAudit.$inferInsert): Promise<void> {
    await this.db.insert(adminAudit).values(row);
  }

  recent(limit: number): Promise<AuditRow[]> {
    return this.db.select().from(adminAudit).orderBy(desc(adminAudit.createdAt)).limit(limit);
  }
}
