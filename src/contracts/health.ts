import { z } from 'zod';

/** What `GET /api/healthz` answers; the browser reads `standins` to say which offline parts are active. */
export const Health = z.object({
  /** 'degraded' whenever `degraded` names anything. */
  status: z.enum(['ok', 'degraded']),
  /**
   * What is not working right now, in short phrases for people ("market feed stalled", "database
   * unreachable", "AI analyzer not answering: local fallback"); empty when all is well.
   */
  degraded: z.array(z.string()),
  db: z.enum(['pglite', 'postgres']),
  dbOk: z.boolean(),
  bus: z.enum(['memory', 'redis']),
  busOk: z.boolean(),
  market: z.enum(['sim', 'binance']),
  news: z.array(z.string()),
  exchange: z.enum(['paper']),
  analyzer: z.enum(['local', 'llm']),
  payments: z.array(z.string()),
  mail: z.enum(['outbox', 'smtp']),
  /** Human-readable names of the offline stand-ins in use, e.g. "embedded database (PGlite)". */
  standins: z.array(z.string()),
  /**
   * Whether the take profit and stop loss of rules on live and demo accounts act in the app now: only
   * on Binance's own prices, so not while the prices are simulated (max hold and unwinds run either way).
   * Absent from a server from before it existed.
   */
  livePriceTriggers: z.boolean().optional(),
  version: z.string(),
  uptimeSeconds: z.number(),
  /**
   * What this process does: all (the default), api (serves only) or worker (runs the jobs only). Both
   * fields default, so that a client reads a server from before they existed.
   */
  role: z.enum(['all', 'api', 'worker']).default('all'),
  /** The singleton jobs this process runs now ("market-feed", "news-sources", "rules"…). */
  leases: z.array(z.string()).default([]),
});
export type Health = z.infer<typeof Health>;
