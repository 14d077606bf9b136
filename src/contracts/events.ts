import { z } from 'zod';

/**
 * The bus's event map: one zod schema per topic. Publishers and subscribers are typed from it, and a
 * bus that crosses a process boundary (Redis) validates every message it receives against it.
 */
export const BusEvents = {
  /** Round-trip probe used by the health check. */
  'system.ping': z.object({ nonce: z.string(), from: z.string() }),
  /** A user account was created. */
  'user.created': z.object({ id: z.string(), username: z.string() }),
} as const;

export type BusEventMap = { [K in keyof typeof BusEvents]: z.infer<(typeof BusEvents)[K]> };
export type BusTopic = keyof BusEventMap;
