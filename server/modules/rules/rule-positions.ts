import { and, eq, inArray } from 'drizzle-orm';
import { exchangeSymbol } from '../../../src/contracts/trading';
import type { Db } from '../../db/client';
import { ruleDecisions } from '../../db/schema/rules';

/** The symbols on which rules opened a position on `account` that they have not closed yet. */
export async function ruleOpenedSymbols(db: Db, userId: string, account: string): Promise<Set<string>> {
  const d = ruleDecisions;
  const rows = await db
    .selectDistinct({ symbol: d.symbol })
    .from(d)
    .where(and(eq(d.userId, userId), eq(d.account, account), inArray(d.exitState, ['open', 'closing'])));
  return new Set(rows.map((r) => exchangeSymbol(r.symbol)));
}

/**
 * How many positions rules opened are open on `account`: what "max positions (rules)" counts. A
 * trader's own positions are theirs, not the rules' (as a bot's max open trades counts its own trades
 * only), and a rule's position closed by hand meanwhile no longer counts. The venue is asked only when
 * rules have positions to check.
 */
export async function rulePositionCount(
  deps: {
    opened(userId: string, account: string): Promise<Set<string>>;
    positions(userId: string, account: string): Promise<readonly { symbol: string }[]>;
  },
  userId: string,
  account: string,
): Promise<number> {
  const opened = await deps.opened(userId, account);
  if (opened.size === 0) return 0;
  const open = await deps.positions(userId, account);
  return new Set(open.map((p) => exchangeSymbol(p.symbol)).filter((s) => opened.has(s))).size;
}
