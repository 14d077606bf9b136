import { z } from 'zod';
import {
  EventType,
  Sentiment,
  type AnalysisInput,
  type AnalysisResult,
} from '../../../src/contracts/analysis';
import { assetDetailsOf, isStablecoin } from '../../../src/contracts/tradability';
import { COINS } from './assets';
import { QUOTES, SYMBOL_ALIASES } from './assets-table';
import type { LlmClient } from './llm-client';

/**
 * ANALYZER=llm: the same result shape from an OpenAI-compatible model, asked with a JSON schema,
 * temperature 0 and a few examples written under docs/labelling.md. The caller runs the local engine
 * too, flags disagreement, and falls back to the local result when this throws.
 */

/** What the model must answer (strict JSON schema, so every field is required). */
export const LlmAnswer = z.object({
  sentiment: Sentiment,
  assets: z.array(z.string()),
  event_type: EventType,
  impact_score: z.number().min(0).max(100),
  reasoning: z.string().min(1),
});
export type LlmAnswer = z.infer<typeof LlmAnswer>;

export const RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'news_analysis',
    strict: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['sentiment', 'assets', 'event_type', 'impact_score', 'reasoning'],
      properties: {
        sentiment: { type: 'string', enum: Sentiment.options },
        assets: { type: 'array', items: { type: 'string' } },
        event_type: { type: 'string', enum: EventType.options },
        impact_score: { type: 'integer', minimum: 0, maximum: 100 },
        reasoning: { type: 'string' },
      },
    },
  },
} as const;

/** Recorded on every LLM result (`engine_version`); bump it with any change to the prompt or examples. */
export const PROMPT_VERSION = 'llm-prompt-3';

const SYSTEM = [
  'You analyse one crypto news item for traders and answer only with JSON matching the schema.',
  'sentiment: the expected price direction over about a day for holders of the tagged assets (or the crypto market when none), not the tone.',
  'positive: listings, ETF approvals/inflows, favourable rulings, partnerships, buybacks, rate cuts, shorts liquidated in a rally, coins leaving exchanges.',
  'negative: delistings, hacks, depegs, halted withdrawals, insolvency, bans/lawsuits, ETF rejections/outflows, outages, unlocks, hawkish macro, longs liquidated, coins sent to exchanges, a denied or delayed good event.',
  'neutral: scheduled events without surprise, chatter, explainers, transfers between unknown wallets, a denied bad rumour.',
  'Hedges ("reportedly", "considering", "rumour") keep the direction and lower the impact.',
  'assets: the tickers of every coin the item is about (BTC, ETH, PEPE, SHIB, FTT, CEL), never a futures contract name (not 1000PEPE), never fiat (USD, EUR), never an exchange; a stablecoin (USDT, USDC, DAI) only when the item is about it (its peg, supply, issuer or reserves, a freeze, its listing or delisting), never when it only denominates an amount ("$12M in USDC stolen"), quotes a pair (ETH/USDT) or names a margin type (USDT-margined); a chain named only as where something happens ("on the Tron network") is not an asset when another coin is the subject; ambiguous words (link, one, near, op, not, ai, trump the person) only when they clearly mean the coin.',
  "impact_score 0-100, calibrated for alerts: 80+ for a listing or delisting on a major exchange, a hack of $100M or more, an insolvency or withdrawal freeze, a stablecoin depeg, a regulator's or court's decision, an ETF approval or rejection, a macro surprise; 50-80 for notable news (smaller hacks, minor-venue listings, large unlocks, big ETF flows or liquidations); below 50 for background (partnerships, upgrades, routine notices, price chatter, opinion). The event, its size (dollar amounts, % moves) and the asset size count more than the source's name.",
  'reasoning: one sentence naming the event, the key phrase, the assets and why it matters.',
].join('\n');

const EXAMPLES: { input: string; answer: LlmAnswer }[] = [
  {
    input: 'Source: Binance Announcements\nText: Binance Will List Jito (JTO) with Seed Tag Applied',
    answer: {
      sentiment: 'positive',
      assets: ['JTO'],
      event_type: 'listing',
      impact_score: 86,
      reasoning:
        'Binance listing of JTO ("Will List") from the exchange itself: new listings have lifted tokens about 6% on the day on average.',
    },
  },
  {
    input: 'Source: X\nText: Curve pools exploited via reentrancy bug, $62M drained, $CRV down 15%',
    answer: {
      sentiment: 'negative',
      assets: ['CRV'],
      event_type: 'hack',
      impact_score: 72,
      reasoning:
        'A $62M exploit of Curve ("drained") hits CRV directly, as exploits drain value and confidence.',
    },
  },
  {
    input: 'Source: X\nText: check the link in bio, one of the best threads on market structure',
    answer: {
      sentiment: 'neutral',
      assets: [],
      event_type: 'other',
      impact_score: 3,
      reasoning: 'Promotional chatter ("link in bio") names no coin and carries no market-moving event.',
    },
  },
];

export function describeInput(input: AnalysisInput): string {
  const lines = [
    `Source: ${input.source_name}${input.username ? ` (@${input.username})` : ''}`,
    `Text: ${input.content}`,
  ];
  if (input.quote) lines.push(`Quoting ${input.quote.source_name ?? 'a post'}: ${input.quote.content}`);
  return lines.join('\n');
}

/** The request body (without `model`, which the client adds). */
export function buildRequest(input: AnalysisInput): Record<string, unknown> {
  const messages = [{ role: 'system', content: SYSTEM }];
  for (const ex of EXAMPLES) {
    messages.push(
      { role: 'user', content: ex.input },
      { role: 'assistant', content: JSON.stringify(ex.answer) },
    );
  }
  messages.push({ role: 'user', content: describeInput(input) });
  return { messages, temperature: 0, response_format: RESPONSE_FORMAT };
}

/** `pepe`, `$SOL`, `ETHUSDT`, `1000PEPE`, `USDC` → coin tickers; fiat and unknown symbols are dropped. */
export function normalizeTickers(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of raw) {
    let t = r
      .trim()
      .replace(/^[$#]/, '')
      .toUpperCase()
      .replace(/(?<=.)[/-]?USDT$/, '');
    t = SYMBOL_ALIASES[t] ?? t;
    if (!COINS.has(t) && /^1000[A-Z]/.test(t)) t = t.slice(4);
    if (COINS.has(t) && (isStablecoin(t) || !QUOTES.includes(t)) && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Parses and validates the model's content; throws on anything off-schema. */
export function parseAnswer(content: string): Omit<AnalysisResult, 'engine'> {
  const json: unknown = JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  const answer = LlmAnswer.parse(json);
  const assets = normalizeTickers(answer.assets);
  const reasoning = answer.reasoning.replace(/\s+/g, ' ').trim();
  return {
    assets,
    asset_details: assetDetailsOf(assets),
    asset: assets[0] ?? null,
    sentiment: answer.sentiment,
    impact_score: Math.round(answer.impact_score),
    reasoning: /[.!?]$/.test(reasoning) ? reasoning : `${reasoning}.`,
    event_type: answer.event_type,
  };
}

export async function analyzeWithLlm(
  client: LlmClient,
  input: AnalysisInput,
): Promise<Omit<AnalysisResult, 'engine'>> {
  return parseAnswer(await client.complete(buildRequest(input)));
}
