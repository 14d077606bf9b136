import { z } from 'zod';
import { splitTerms, TermList } from './keywords';
import { Decision } from './ruleReports';
import { findTicker } from './symbols';
import { isStablecoin, TRADABILITY_TEXT } from './tradability';

/**
 * Auto-trade rules on the wire (docs/product.md §3 auto-trade rule, §5 rule validation, §7 `/rules/`): when a
 * completed signal about an asset arrives with a sentiment and an impact in range, open a position.
 * Beyond the spec: optional exits on the action, `PATCH /rules/{id}`, the per-user risk envelope, the
 * decision ledger and the backtest. The ledger and the other reports are in `ruleReports.ts`; they are
 * exported from here too, so one import gives the whole rules contract.
 */
export * from './ruleReports';

export const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;
export const RuleSentiment = z.enum(SENTIMENTS, {
  error: 'Sentiment must be positive, negative or neutral.',
});
export type RuleSentiment = z.infer<typeof RuleSentiment>;

/** An empty string or null from a form means "any": such conditions are left out of the stored rule. */
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

const Impact = (name: string) =>
  z.preprocess(
    blank,
    z
      .number({ error: `${name} must be a number from 0 to 100.` })
      .min(0, { error: `${name} must be from 0 to 100.` })
      .max(100, { error: `${name} must be from 0 to 100.` })
      .optional(),
  );

/**
 * A rule's words (keywords.ts): a list, or one comma-separated string as a form or a command gives it;
 * an empty one means "any" and is left out.
 */
const Words = (list: 'include' | 'exclude') =>
  z.preprocess((v) => {
    const terms = typeof v === 'string' ? splitTerms(v) : v;
    return terms === null || (Array.isArray(terms) && terms.length === 0) ? undefined : terms;
  }, TermList(list).optional());

export const RuleConditions = z
  .object({
    asset: z.preprocess(
      blank,
      z
        .string()
        .trim()
        .toUpperCase()
        .refine((t) => findTicker(t) !== undefined, {
          // A stablecoin is tagged on the news but never traded: said so, not "unsupported".
          error: (issue) =>
            typeof issue.input === 'string' && isStablecoin(issue.input)
              ? TRADABILITY_TEXT.noContract(issue.input.toUpperCase())
              : 'Asset must be a supported ticker such as BTC.',
        })
        .optional(),
    ),
    sentiment: z.preprocess(blank, RuleSentiment.optional()),
    min_impact: Impact('Minimum impact'),
    max_impact: Impact('Maximum impact'),
    /** At least one of these words or phrases must be in the headline (its text, quote or source). */
    include: Words('include'),
    /** None of these may be. */
    exclude: Words('exclude'),
  })
  .refine((c) => c.min_impact === undefined || c.max_impact === undefined || c.min_impact <= c.max_impact, {
    error: 'Minimum impact must not be above maximum impact.',
    path: ['min_impact'],
  })
  .transform((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as typeof c);
export type RuleConditions = z.infer<typeof RuleConditions>;

const Pct = (name: string) =>
  z.preprocess(
    blank,
    z
      .number({ error: `${name} must be a number.` })
      .gt(0, { error: `${name} must be above 0%.` })
      .max(1000, { error: `${name} must be at most 1000%.` })
      .optional(),
  );

/** Exits the server runs on the position a rule opened, on the paper exchange's mark prices. */
export const RuleExit = z
  .object({
    take_profit_pct: Pct('Take profit'),
    stop_loss_pct: Pct('Stop loss'),
    max_hold_minutes: z.preprocess(
      blank,
      z
        .number({ error: 'Max hold must be a number of minutes.' })
        .int({ error: 'Max hold must be a whole number of minutes.' })
        .min(1, { error: 'Max hold must be at least 1 minute.' })
        .max(10_080, { error: 'Max hold must be at most 7 days.' })
        .optional(),
    ),
    /**
     * What a later retraction of the story (a denial, a correction, a hacked-account notice) does to the
     * position: `close` it at once (the default) or `keep` it.
     */
    on_retraction: z.preprocess(
      blank,
      z.enum(['close', 'keep'], { error: 'On retraction must be close or keep.' }).optional(),
    ),
  })
  .transform((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as typeof e);
export type RuleExit = z.infer<typeof RuleExit>;

export const RuleAction = z.object({
  type: z.literal('trade', { error: 'Action type must be trade.' }).default('trade'),
  side: z.enum(['long', 'short'], { error: 'Side must be long or short.' }),
  amount_usd: z
    .number({ error: 'Trade amount is required.' })
    .min(1, { error: 'Trade amount must be at least 1.' })
    .max(10_000_000, { error: 'Trade amount is too large.' }),
  exit: z.preprocess(blank, RuleExit.optional()),
  /**
   * Where the rule's orders go: `paper` (the default) or the id of one of the user's exchange keys,
   * whatever account the user picked for manual trading. Going to a LIVE key needs step-up.
   */
  account: z
    .string({ error: 'Account must be paper or one of your key ids.' })
    .trim()
    .min(1, { error: 'Account must be paper or one of your key ids.' })
    .max(64, { error: 'Account must be paper or one of your key ids.' })
    .default('paper'),
});
export type RuleAction = z.infer<typeof RuleAction>;

/** `auto` places the order on a match; `ask` proposes it and waits for the user's answer first. */
export const RULE_MODES = ['auto', 'ask'] as const;
export const RuleMode = z.enum(RULE_MODES, { error: 'Mode must be auto or ask.' });
export type RuleMode = z.infer<typeof RuleMode>;

/** How long an ask rule's proposal waits for an answer before it is skipped ("no answer"). */
export const ASK_WINDOW = { min: 10, max: 600, default: 60 } as const;
export const AskWindow = z
  .number({ error: 'Ask window must be a number of seconds.' })
  .int({ error: 'Ask window must be a whole number of seconds.' })
  .min(ASK_WINDOW.min, { error: `Ask window must be at least ${ASK_WINDOW.min} seconds.` })
  .max(ASK_WINDOW.max, { error: `Ask window must be at most ${ASK_WINDOW.max} seconds (10 minutes).` });

/** `POST /api/rules/` body. */
export const RuleCreate = z.object({
  ruleName: z
    .string({ error: 'Rule name is required.' })
    .trim()
    .min(1, { error: 'Rule name is required.' })
    .max(100),
  conditions: z.preprocess((v) => v ?? {}, RuleConditions),
  action: RuleAction,
  isActive: z.boolean().default(true),
  mode: RuleMode.default('auto'),
  ask_window_sec: AskWindow.default(ASK_WINDOW.default),
});
export type RuleCreate = z.infer<typeof RuleCreate>;

/**
 * `PATCH /api/rules/{id}` body: any of the fields; conditions and action are replaced whole, except the
 * action's account, which stays where it is unless named.
 */
export const RulePatch = z
  .object({
    ruleName: RuleCreate.shape.ruleName.optional(),
    conditions: RuleConditions.optional(),
    action: RuleAction.extend({ account: RuleAction.shape.account.unwrap().optional() }).optional(),
    isActive: z.boolean().optional(),
    mode: RuleMode.optional(),
    ask_window_sec: AskWindow.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, { error: 'Nothing to change.' });
export type RulePatch = z.infer<typeof RulePatch>;

export const Rule = z.object({
  id: z.string(),
  ruleName: z.string(),
  conditions: z.object({
    asset: z.string().optional(),
    sentiment: RuleSentiment.optional(),
    min_impact: z.number().optional(),
    max_impact: z.number().optional(),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
  }),
  action: z.object({
    type: z.literal('trade'),
    side: z.enum(['long', 'short']),
    amount_usd: z.number(),
    exit: z
      .object({
        take_profit_pct: z.number().optional(),
        stop_loss_pct: z.number().optional(),
        max_hold_minutes: z.number().optional(),
        on_retraction: z.enum(['close', 'keep']).optional(),
      })
      .optional(),
    account: z.string(),
  }),
  isActive: z.boolean(),
  /** Optional so that a copy saved before ask rules existed still reads (as `auto`, 60 s). */
  mode: RuleMode.optional(),
  ask_window_sec: z.number().optional(),
  version: z.number(),
  created_at: z.string(),
});
export type Rule = z.infer<typeof Rule>;
export const RuleList = z.array(Rule);

/** The per-user risk envelope every automated order passes; the max order size holds for every order. */
export const RiskSettings = z.object({
  max_order_usd: z.number().min(1).max(10_000_000),
  daily_budget_usd: z.number().min(1).max(100_000_000),
  max_positions: z.number().int().min(1).max(200),
  cooldown_minutes: z.number().int().min(0).max(1440),
  max_age_seconds: z.number().int().min(1).max(3600),
  /** Automated orders on LIVE keys have limits of their own, apart from (and within) paper's. */
  live_max_order_usd: z.number().min(1).max(10_000_000),
  live_daily_budget_usd: z.number().min(1).max(100_000_000),
  /**
   * The slippage cap, in %, of every market order sent without one of its own (manual or a rule's): the
   * fill is estimated from the book first and the order sent within it. Null: no cap.
   */
  max_slippage_pct: z
    .number({ error: 'Max slippage must be a number.' })
    .gt(0, { error: 'Max slippage must be greater than zero.' })
    .max(10, { error: 'Max slippage must be 10% or less.' })
    .nullable(),
});
export type RiskSettings = z.infer<typeof RiskSettings>;

/**
 * Defaults that protect a new user. `max_order_usd` is the ceiling of the default maximum order, which
 * fits the account: the smaller of it and {@link MAX_ORDER_SHARE} times the account's balance.
 */
export const DEFAULT_RISK: RiskSettings = {
  max_order_usd: 250_000,
  daily_budget_usd: 5000,
  max_positions: 5,
  cooldown_minutes: 15,
  max_age_seconds: 15,
  live_max_order_usd: 500,
  live_daily_budget_usd: 1000,
  max_slippage_pct: null,
};

/** The share of an account's balance that the default maximum order is (below the ceiling). */
export const MAX_ORDER_SHARE = 5;

export const RiskState = RiskSettings.extend({
  /** Where `max_order_usd` comes from: "5 × your 10,000 paper balance", or "your own setting". */
  max_order_basis: z.string().optional(),
  /** Whether the user set the maximum order themselves (false: the default that fits the account). */
  max_order_saved: z.boolean().optional(),
  kill_switch: z.boolean(),
  /** When a kill switch turned on with a resume time turns itself off (ISO), else null. */
  resume_at: z.string().nullable(),
  /** Notional of automated orders since 00:00 UTC (pending ones counted at their amount). */
  spent_today_usd: z.number(),
  /** The same, of automated orders on LIVE keys only. */
  live_spent_today_usd: z.number(),
});
export type RiskState = z.infer<typeof RiskState>;

export const RiskUpdate = RiskSettings.partial().refine((p) => Object.keys(p).length > 0, {
  error: 'Nothing to change.',
});
export type RiskUpdate = z.infer<typeof RiskUpdate>;

/** `POST /api/rules/kill-switch`: on or off, with an optional resume time in minutes when turning on. */
export const KillSwitchRequest = z.object({
  on: z.boolean(),
  resume_in_minutes: z.number().int().min(1).max(10_080).optional(),
});

/** `POST /api/rules/{id}/account`: move a rule to paper or to one of the user's keys. */
export const RuleAccountChange = z.object({
  account: RuleAction.shape.account,
});

/** Where an answer to an ask rule's proposal came from. */
export const ANSWER_CHANNELS = ['browser', 'terminal', 'telegram', 'api'] as const;
export const AnswerChannel = z.enum(ANSWER_CHANNELS);
export type AnswerChannel = z.infer<typeof AnswerChannel>;

/** `POST /api/rules/decisions/{id}/answer`: confirm or reject a proposal (the first answer wins). */
export const RuleAnswer = z.object({
  answer: z.enum(['confirm', 'reject'], { error: 'Answer must be confirm or reject.' }),
  /** Where the user answered (the browser's toast, the terminal's prompt); `api` when unsaid. */
  via: z
    .enum(['browser', 'terminal', 'api'], { error: 'Via must be browser, terminal or api.' })
    .default('api'),
});
export type RuleAnswer = z.infer<typeof RuleAnswer>;

/** The decision after the answer, and one line saying what the server did (the order's venue, size, price). */
export const RuleAnswerResult = z.object({ decision: Decision, message: z.string() });
export type RuleAnswerResult = z.infer<typeof RuleAnswerResult>;

/** The server's `detail` texts for rules. */
export const RULE_DETAILS = {
  notFound: 'Rule not found.',
  planLimit: (limit: number) =>
    `A free account can have ${limit} active rules. Turn one off or upgrade to Premium for unlimited auto-trading rules.`,
  maxOrder: (amount: number, max: number) =>
    `The order of ${amount} USDT is above your maximum order size of ${max} USDT (risk settings).`,
  /** "max positions (rules)" counts the positions rules opened only: the trader's own are theirs. */
  maxPositions: (open: number, max: number) =>
    `${open} position${open === 1 ? '' : 's'} opened by rules ${open === 1 ? 'is' : 'are'} open (max ${max}).`,
  /** A rule whose amount its account's venue would refuse: "Bybit's minimum order for ETH is 5 USDT; …". */
  belowMinimum: (venue: string, asset: string, minimum: number, amount: number) =>
    `${venue}'s minimum order for ${asset} is ${minimum} USDT; this rule's ${amount} USDT would be refused.`,
  decisionNotFound: 'Decision not found.',
  notAsking: 'This decision is not a proposal waiting for an answer.',
  alreadyAnswered: (via: string) => `Already answered in ${via}.`,
  expired: 'The proposal expired: no answer came in time.',
  noAnswer: (seconds: number) => `No answer within ${seconds} s.`,
  rejected: (via: string) => `Rejected in ${via}.`,
  premiumSource:
    'This news came from a source for Premium accounts, which your plan no longer receives: nothing was placed.',
} as const;

/** The docs/product.md §8 messages for the rules pane. */
export const RULE_MESSAGES = {
  fetchFailed: 'Failed to fetch auto-trade rules.',
  saveFailed: 'Failed to save rule.',
  deleteFailed: 'Failed to delete rule.',
} as const;
