import type { z } from 'zod';
import type { OrderResult } from './exchange';
import { minimumText } from '../../../src/contracts/sizing';

/**
 * An exchange's refusal, with Binance's code and message (`{"code":-2019,"msg":"Margin is insufficient."}`).
 * The paper exchange raises the same codes and texts as Binance so that the rest of the product (and the
 * user) sees one vocabulary whichever exchange filled the order.
 */
export class ExchangeError extends Error {
  override name = 'ExchangeError';
  constructor(
    readonly code: number,
    readonly msg: string,
  ) {
    super(msg);
  }
}

/**
 * The venue could not be reached, did not answer in time, or answered with a server error (any 5xx, with
 * or without a code): the request's outcome is unknown. `code`/`msg` are the venue's when it sent them.
 */
export class VenueUnreachable extends Error {
  override name = 'VenueUnreachable';
  constructor(
    message: string,
    readonly code: number | null = null,
    readonly msg: string | null = null,
    /** `Binance`, `Bybit`, `OKX`: who did not answer. */
    readonly venue: string = 'Binance',
  ) {
    super(message);
  }
}

/**
 * The venue is limiting this server's requests (Binance 429, or 418 when the IP is banned; Bybit 10006 or
 * its 403 ban; OKX 50011 or 429): wait `retryAfterSeconds` before the next call. Nothing was placed.
 */
export class VenueRateLimited extends ExchangeError {
  override name = 'VenueRateLimited';
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number,
    code: number,
    msg: string,
    readonly venue: string = 'Binance',
  ) {
    super(code, msg);
  }
}

export const exchangeErrors = {
  invalidSymbol: () => new ExchangeError(-1121, 'Invalid symbol.'),
  marginInsufficient: () => new ExchangeError(-2019, 'Margin is insufficient.'),
  /** Binance says "ReduceOnly Order is rejected."; the product has no reduce-only orders, only closes. */
  reduceOnlyRejected: () => new ExchangeError(-2022, 'There is no open position to close.'),
  maxPosition: () => new ExchangeError(-2027, 'Exceeded the maximum allowable position at current leverage.'),
  /** Binance's text offers "reduce only", which the product does not have: this one names the minimum. */
  minNotional: (pair: string, notional: string) => new ExchangeError(-4164, minimumText(pair, notional)),
  quantityTooSmall: () => new ExchangeError(-4003, 'Quantity less than or equal to zero.'),
  invalidLeverage: () => new ExchangeError(-4028, 'Leverage is not valid'),
  noPrice: () => new ExchangeError(-1003, 'No price is available for this symbol right now.'),
} as const;

/**
 * The order may or may not have reached the exchange (a timeout, -1007, a connection cut after sending):
 * it must be looked up by its client order id before anything is sent again.
 */
export class OrderOutcomeUnknown extends Error {
  override name = 'OrderOutcomeUnknown';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * The venue answered, but not in a shape this server can read: a field it needs is missing or not what
 * Binance documents. Nothing of the answer is used. `changed` says what that means for the account: a
 * read changed nothing; a setting sent may have been applied. (An order's unreadable answer is never
 * raised as this: its outcome is unknown and it is looked up by its client id.)
 */
export class VenueAnswerUnreadable extends Error {
  override name = 'VenueAnswerUnreadable';
  constructor(
    /** `Binance` */
    readonly venue: string,
    /** What was asked, in words: `the positions`, `the balance`, `the leverage change`. */
    readonly what: string,
    /** The fields that could not be read, e.g. `initialMargin missing`. */
    readonly fields: readonly string[],
    readonly changed: 'nothing' | 'maybe' = 'nothing',
  ) {
    super(`${venue} sent an answer we could not read (${what}: ${fields.join(', ')})`);
  }

  /** What the user is told: which venue, which fields, and what it means for their account. */
  get detail(): string {
    const head = `${this.venue} sent an answer we could not read for ${this.what} (${this.fields.join(', ')}).`;
    return this.changed === 'nothing'
      ? `${head} Nothing was changed.`
      : `${head} It may have been applied: check it on ${this.venue} before trading.`;
  }
}

/** The most fields an unreadable answer names (the same field missing on every row counts once). */
const FIELDS_NAMED = 3;

/**
 * Reads a venue's answer with its schema: the parsed value, or VenueAnswerUnreadable naming the fields
 * that failed (array positions left out: `initialMargin missing`, not `0.initialMargin`).
 */
export function readVenueAnswer<S extends z.ZodType>(
  schema: S,
  body: unknown,
  what: string,
  opts: { venue?: string; changed?: 'nothing' | 'maybe' } = {},
): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new VenueAnswerUnreadable(
    opts.venue ?? 'Binance',
    what,
    unreadableFields(parsed.error, body),
    opts.changed ?? 'nothing',
  );
}

function unreadableFields(error: z.ZodError, body: unknown): string[] {
  const named = new Set<string>();
  for (const issue of error.issues) {
    const path = issue.path.filter((p) => typeof p === 'string').join('.');
    const missing = valueAt(body, issue.path) === undefined;
    named.add(
      path === ''
        ? missing
          ? 'no body'
          : 'not the documented shape'
        : `${path} ${missing ? 'missing' : 'not valid'}`,
    );
    if (named.size === FIELDS_NAMED) break;
  }
  return [...named];
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = body;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** One position of a close-all whose close did not simply fill. */
export interface CloseLeft {
  symbol: string;
  clientOrderId: string;
}

/**
 * A close-all that closed what it could but not everything: `unknown` closes were sent without a clear
 * answer (look them up by client id before saying anything), `refused` ones placed nothing (`error` says
 * why, as the venue or the client raised it).
 */
export class CloseAllIncomplete extends Error {
  override name = 'CloseAllIncomplete';
  constructor(
    readonly fills: readonly OrderResult[],
    readonly unknown: readonly (CloseLeft & { reason: string })[],
    readonly refused: readonly (CloseLeft & { error: unknown })[],
  ) {
    super(`close-all incomplete: ${unknown.length} unknown, ${refused.length} refused`);
  }
}
