import { z } from 'zod';
import { MarketSourceKind, PriceItem } from './market';
import { Decision } from './ruleReports';
import { RetractionKind, Signal, SourceState } from './signals';

/**
 * The bus's event map: one zod schema per topic. Publishers and subscribers are typed from it, and a
 * bus that crosses a process boundary (Redis) validates every message it receives against it.
 */
export const BusEvents = {
  /** Round-trip probe used by the health check. */
  'system.ping': z.object({ nonce: z.string(), from: z.string() }),
  /** A user account was created. */
  'user.created': z.object({ id: z.string(), username: z.string() }),
  /** Some sign-ins of the user ended (or the account was disabled): every node re-checks its sockets. */
  'auth.sessions': z.object({ userId: z.string() }),
  /** A batch of prices from the market source (every symbol that moved in one upstream update). */
  'price.tick': z.object({ source: MarketSourceKind, ticks: z.array(PriceItem) }),
  /**
   * A batch of the exchange's mark prices (what it liquidates on), from a source that has them (Binance's
   * `!markPrice@arr@1s`); the simulator publishes none.
   */
  'price.mark': z.object({ source: MarketSourceKind, marks: z.array(PriceItem) }),
  /** A paper account changed (fill, liquidation, reset): other processes reload it and refresh sockets. */
  'trading.account': z.object({
    userId: z.string(),
    origin: z.string(),
    reason: z.enum(['order', 'liquidation', 'leverage', 'reset']),
    symbol: z.string().optional(),
    price: z.number().optional(),
  }),
  /** A user's auto-trade rules changed: every process re-reads the active rules. */
  /**
   * Something happened to a position's protection without the user asking (a leg fired, vanished and was
   * placed again, was refused, a time exit keeps failing): the user's tabs, Telegram and push are told.
   */
  'trading.protection': z.object({
    userId: z.string(),
    origin: z.string(),
    symbol: z.string(),
    event: z.enum(['fired', 'placed_again', 'refused', 'exit_failing', 'exited']),
    leg: z.enum(['stop_loss', 'take_profit', 'trailing', 'exit']),
    text: z.string(),
  }),
  /** A resting limit order filled off the book: the user's tabs are told, in words. */
  'trading.limit': z.object({ userId: z.string(), origin: z.string(), symbol: z.string(), text: z.string() }),
  'rules.changed': z.object({ userId: z.string(), origin: z.string() }),
  /**
   * A rule's decision was recorded or changed: fired, skipped, an exit closed what it opened, an ask rule's
   * proposal opened (`asking`) or was answered. What notifies the user away from the tab listens here.
   */
  'rules.decided': z.object({
    userId: z.string(),
    /** The process that recorded it (the rule engine's book of fired totals follows the others'). */
    origin: z.string().optional(),
    /** `exit_failing`: the close of a rule's exit has failed three times (it goes on trying). */
    event: z.enum(['fired', 'skipped', 'asking', 'answered', 'exit', 'exit_failing']),
    decision: Decision,
    /** The headline the decision was about, when known (at most 500 characters). */
    headline: z.string().nullable().optional(),
    /** The analysis's reasoning about that headline, when known (what an ask rule's proposal shows). */
    reasoning: z.string().nullable().optional(),
  }),
  /**
   * A user's notification settings or channels changed (a push subscription, a Telegram chat): the process
   * dispatching notifications re-reads who it may reach.
   */
  'notifications.changed': z.object({ userId: z.string() }),
  /** A user saved or cleared their feed filter: every process's copy of it is dropped. */
  'users.feedFilter': z.object({ userId: z.string() }),
  /**
   * Channel posts the Telegram bot read (it is the one reader of the bot's updates), for the news
   * source, as the Bot API sent them. `backlog_before` (ms): posts made before it were waiting unread.
   */
  'telegram.posts': z.object({
    updates: z.array(z.looseObject({ update_id: z.number().int() })),
    backlog_before: z.number().nullable(),
  }),
  /** The news sources' states, from the process running them (on every change, and every few seconds). */
  'news.sources': z.object({ sources: z.array(SourceState) }),
  /** An api node stored a news item for the worker running the news sources to analyse. */
  'news.stored': z.object({ id: z.number().int() }),
  /** A news signal was created or changed (analysed, or reported by another source); `rev` orders them. */
  'signal.published': z.object({ rev: z.number().int(), signal: Signal }),
  /**
   * A stored, analysed signal retracts an earlier one (a denial, a correction, a withdrawal, a hacked
   * account): published once both are stored and published, so a consumer may unwind what it did on
   * `retractedId` (the rules close the positions opened on it). Once per retracted signal.
   */
  'signal.retracted': z.object({
    retractedId: z.string(),
    retractionId: z.string(),
    kind: RetractionKind,
    /** The retraction's text, at most 500 characters. */
    reason: z.string(),
    /** When the retraction arrived (ISO time). */
    receivedAt: z.string(),
  }),
  /**
   * A new impact calibration was stored for this market source: every news module loads it and scores
   * the next analyses with it.
   */
  'impact.calibrated': z.object({ priceSource: MarketSourceKind, fittedAt: z.string() }),
  /**
   * A stored, analysed signal from a less trusted source reads as retracting an earlier one: the story
   * is marked disputed and nothing is closed on it; those who hold positions on `disputedId` are to be
   * asked whether to close them ("A weaker source disputes …: close?"). Once per disputed signal.
   */
  'signal.disputed': z.object({
    disputedId: z.string(),
    disputeId: z.string(),
    kind: RetractionKind,
    /** The dispute's text, at most 500 characters. */
    reason: z.string(),
    /** Who disputes it, and who posted the story. */
    sourceName: z.string(),
    storySourceName: z.string(),
    /** The disputed story's first line, at most 200 characters: what the question to its holders names. */
    headline: z.string(),
    /** When the dispute arrived (ISO time). */
    receivedAt: z.string(),
  }),
} as const;

export type BusEventMap = { [K in keyof typeof BusEvents]: z.infer<(typeof BusEvents)[K]> };
export type BusTopic = keyof BusEventMap;
