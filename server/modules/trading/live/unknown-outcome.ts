import { VenueUnreachable } from '../../exchanges/binance-client';
import { ExchangeError, OrderOutcomeUnknown, VenueAnswerUnreadable } from '../exchange-error';

/**
 * Binance's codes that say the order's execution status is unknown (-1000 unknown error, -1001
 * disconnected, -1006 unexpected answer from the message bus, -1007 backend timeout): it may have filled.
 */
export const UNKNOWN_OUTCOME_CODES: ReadonlySet<number> = new Set([-1000, -1001, -1006, -1007]);

/**
 * What a failed write means: no answer, a time-out, any 5xx (with a code or without), a status-unknown
 * code or an answer that cannot be read leave its outcome unknown (OrderOutcomeUnknown: look it up before
 * sending it again); anything else is the venue's refusal, returned as it is.
 */
export function outcomeOf(err: unknown): unknown {
  if (err instanceof VenueUnreachable) return new OrderOutcomeUnknown(err.msg ?? err.message);
  if (err instanceof VenueAnswerUnreadable) return new OrderOutcomeUnknown(err.message);
  if (err instanceof ExchangeError && UNKNOWN_OUTCOME_CODES.has(err.code)) {
    return new OrderOutcomeUnknown(err.msg);
  }
  return err;
}
