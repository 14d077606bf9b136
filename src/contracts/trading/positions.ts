import { z } from 'zod';
import { decimal } from '../numbers';
import { Decision } from '../ruleReports';
import { NO_PROTECTION, PositionProtection } from '../protection';
import { OpenOrder } from './limitOrders';
import { OrderResponse, PairSymbol } from './orders';

export const Position = z.object({
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  size: z.number(),
  entryPrice: z.number(),
  markPrice: z.number(),
  liquidationPrice: z.number(),
  margin: z.number(),
  unrealizedPnl: z.number(),
  leverage: z.number().int(),
  /** Return on margin, as a fraction (0.12 = 12 %). */
  roe: z.number(),
  notional: z.number(),
  /** The position's stop, target, trailing stop and time exit, and where each rests. */
  protection: PositionProtection.default(NO_PROTECTION),
});
export type Position = z.infer<typeof Position>;

export const ClosePositionRequest = z.object({
  symbol: PairSymbol,
  /**
   * A share of the position to close (`0.5` for half, `1/3` as 0.333…), reduce-only, rounded down to the
   * symbol's step; left out, the whole position.
   */
  share: z
    .number({ error: 'The share must be a number above 0 and at most 1.' })
    .gt(0, { error: 'The share must be above 0 and at most 1.' })
    .max(1, { error: 'The share must be above 0 and at most 1.' })
    .optional(),
});
export const MessageResponse = z.object({ message: z.string() });

/** `POST /api/close_position`: the spec's message, and the closing fill as the venue answered it. */
export const CloseResponse = MessageResponse.extend({ fill: OrderResponse });
export type CloseResponse = z.infer<typeof CloseResponse>;
/** `POST /api/close_all_positions`: the message, and one fill per position closed (none: nothing was open). */
export const CloseAllResponse = MessageResponse.extend({ fills: z.array(OrderResponse) });
export type CloseAllResponse = z.infer<typeof CloseAllResponse>;

export const LeverageRequest = z.object({
  symbol: PairSymbol,
  leverage: decimal(
    z
      .number({ error: 'Leverage must be a number.' })
      .int({ error: 'Leverage must be a whole number.' })
      .min(1, { error: 'Leverage must be between 1 and 125.' })
      .max(125, { error: 'Leverage must be between 1 and 125.' }),
  ),
});

/** What the positions socket sends. */
export const PositionsMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('snapshot'),
    positions: z.array(Position),
    /** The account's resting limit orders; left out when its venue cannot list them. */
    orders: z.array(OpenOrder).optional(),
    time: z.number(),
  }),
  z.object({ type: z.literal('liquidation'), symbol: z.string(), price: z.number(), time: z.number() }),
  /** A resting limit order filled off the book (the market traded through it), in words. */
  z.object({ type: z.literal('limit_filled'), symbol: z.string(), text: z.string(), time: z.number() }),
  /**
   * An ask rule proposes an order and waits for the user's answer until `decision.ask_expires_at`: the
   * proposed order is the decision's side, amount, asset and account; the news and its analysis come with it.
   */
  z.object({
    type: z.literal('proposal'),
    decision: Decision,
    headline: z.string().nullable(),
    reasoning: z.string().nullable(),
    time: z.number(),
  }),
  /**
   * A proposal was answered (here or in another channel: `decision.answered_via`), then ended fired or
   * skipped (rejected, no answer, or refused at confirmation: `decision.reason`).
   */
  z.object({
    type: z.literal('proposal_closed'),
    event: z.enum(['answered', 'fired', 'skipped']),
    decision: Decision,
    time: z.number(),
  }),
  /**
   * Something happened to a position's protection without the user asking: a leg fired, vanished from
   * the exchange and was placed again, was refused (and the position closed), or a time exit keeps failing.
   */
  z.object({
    type: z.literal('protection'),
    symbol: z.string(),
    event: z.enum(['fired', 'placed_again', 'refused', 'exit_failing', 'exited']),
    leg: z.enum(['stop_loss', 'take_profit', 'trailing', 'exit']),
    text: z.string(),
    time: z.number(),
  }),
]);
export type PositionsMessage = z.infer<typeof PositionsMessage>;
