import type { SentOrder } from './orders';
import type { PlacedOrder } from './venues';

/** What one venue holds against what the server answered its keys, after the kills and the retries. */
export interface VenueAudit {
  /** Client ids the venue took more than once (a retry sent again blindly). */
  twice: string[];
  /** Answers that differ from the venue's order, answered orders missing, refused ones present. */
  mismatched: string[];
  /** Orders on the venue no key was answered with. */
  orphans: string[];
  /** Keys and symbols whose venue position is not the sum of the fills the server answered. */
  positions: string[];
  /** Keys answered after a retry whose order the venue took before the kill of their round. */
  recoveredPlacedBeforeKill: number;
}

/** Quantities come from decimal strings on both sides; sums of them may differ in the last float bits. */
const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/**
 * Audits one venue: one order per client id, each key's client id naming the very order the server
 * answered (id, side, symbol, executed quantity), nothing the server did not answer, and each key's
 * position on the venue equal to the sum of the server's fills and of the venue's own.
 */
export function auditVenue(opts: {
  placed: readonly PlacedOrder[];
  sent: readonly SentOrder[];
  apiKeyOf: (user: number) => string;
  /** The venue's client id of a sent key. */
  clientIdOf: (o: SentOrder) => string;
  /** The venue's positions as `apiKey|BTCUSDT` → signed base-asset quantity ({@link readPositions}). */
  positions: ReadonlyMap<string, number>;
  symbols: readonly string[];
  /** When each round's kill came (ms epoch), by round − 1. */
  killedAt: readonly number[];
}): VenueAudit {
  const byId = new Map<string, PlacedOrder[]>();
  for (const o of opts.placed) {
    const id = `${o.apiKey}|${o.clientId}`;
    byId.set(id, [...(byId.get(id) ?? []), o]);
  }
  const twice = [...byId]
    .filter(([, orders]) => orders.length > 1)
    .map(([id, orders]) => `${id}: ${orders.length}`);

  const mismatched: string[] = [];
  const answered = new Set<string>();
  let recoveredPlacedBeforeKill = 0;
  const expected = new Map<string, number>();
  for (const o of opts.sent) {
    const apiKey = opts.apiKeyOf(o.user);
    const id = `${apiKey}|${opts.clientIdOf(o)}`;
    const [v] = byId.get(id) ?? [];
    if (o.order === null) {
      if (v !== undefined) mismatched.push(`${o.key} was refused (${o.refusal}) but is on the venue`);
      continue;
    }
    answered.add(id);
    if (
      v === undefined ||
      v.orderId !== o.order.id ||
      (v.side === 'BUY') !== (o.order.side === 'buy') ||
      !same(v.executed, o.order.quantity) ||
      v.symbol !== o.order.symbol.replace('/', '')
    ) {
      mismatched.push(`${o.key}: answered ${JSON.stringify(o.order)}, venue has ${JSON.stringify(v)}`);
    }
    if (v !== undefined && o.first?.status !== 200 && v.time < (opts.killedAt[o.round - 1] ?? 0)) {
      recoveredPlacedBeforeKill += 1;
    }
    const at = `${apiKey}|${o.order.symbol.replace('/', '')}`;
    const signed = o.order.side === 'buy' ? o.order.quantity : -o.order.quantity;
    expected.set(at, (expected.get(at) ?? 0) + signed);
  }
  const orphans = opts.placed
    .filter((o) => !answered.has(`${o.apiKey}|${o.clientId}`))
    .map((o) => `${o.apiKey}|${o.clientId} (${o.orderId})`);

  const positions: string[] = [];
  const apiKeys = new Set(opts.sent.map((o) => opts.apiKeyOf(o.user)));
  for (const apiKey of apiKeys) {
    for (const pair of opts.symbols) {
      const symbol = pair.replace('/', '');
      const onVenue = opts.positions.get(`${apiKey}|${symbol}`) ?? 0;
      const fromAnswers = expected.get(`${apiKey}|${symbol}`) ?? 0;
      const fromVenue = opts.placed
        .filter((o) => o.apiKey === apiKey && o.symbol === symbol)
        .reduce((sum, o) => sum + (o.side === 'BUY' ? o.executed : -o.executed), 0);
      if (!same(onVenue, fromAnswers) || !same(onVenue, fromVenue)) {
        positions.push(
          `${apiKey} ${symbol}: venue position ${onVenue}, answered fills ${fromAnswers}, venue fills ${fromVenue}`,
        );
      }
    }
  }
  return { twice, mismatched, orphans, positions, recoveredPlacedBeforeKill };
}

/** The venue's positions of the keys on the symbols (`ETH/USDT`), as {@link auditVenue} takes them. */
export async function readPositions(
  keys: readonly { apiKey: string; secret: string }[],
  symbols: readonly string[],
  position: (key: { apiKey: string; secret: string }, symbol: string) => Promise<number>,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const key of keys) {
    for (const pair of symbols) {
      const symbol = pair.replace('/', '');
      out.set(`${key.apiKey}|${symbol}`, await position(key, symbol));
    }
  }
  return out;
}
