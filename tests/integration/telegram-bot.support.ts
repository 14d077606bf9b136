import type { FastifyInstance } from 'fastify';
import type { OrderResponse } from '../../src/contracts/trading';
import { appError } from '../../server/plugins/errors';
import { systemClock, type Clock } from '../../server/modules/market/clock';
import type { TelegramOverrides, TelegramPart } from '../../server/modules/notifications/telegram';
import type { BotTrading } from '../../server/modules/notifications/telegram/telegram-bot';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

export const TOKEN = '777001:AAF-telegram-double-token_xyz';

/** Real timers, and a time that tests move forward (never back) to pass an expiry. */
export function skewedClock(): Clock & { skip(ms: number): void } {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    setTimer: (fn, ms) => systemClock.setTimer(fn, ms),
    skip(ms) {
      skew += ms;
    },
  };
}

/** What the bot's other dependencies saw, and the switches a test turns. */
export interface Fakes {
  liveUsers: Set<string>;
  liveAllowed: Set<string>;
  liveOrders: { userId: string; amount: number }[];
  answers: { userId: string; decisionId: string; answer: string; via: string }[];
  rulesOff: string[];
  /** Live orders answer "outcome unknown"; the look-up then finds them filled. */
  unknownOutcome: boolean;
  unknownKeys: string[];
}

export const LIVE_FILL: Omit<OrderResponse, 'side' | 'symbol'> = {
  id: 'live-1',
  quantity: 0.00123,
  price: 64000.5,
  notional: 78.72,
  fee: 0.03,
  status: 'filled',
  realizedPnl: 0,
  requested: 100,
  adjustment: null,
  note: null,
  account: { venue: 'binance', mode: 'live', keyHint: 'abcd…wxyz' },
  position: null,
} as OrderResponse;

/**
 * The app with the Telegram bot registered in the /api scope as the notifications module will, its
 * trading the paper exchange's (users in `liveUsers` are on a live key, answered by a stand-in).
 */
export async function startBotApp(
  target: TestDatabase,
  env: Record<string, string>,
  opts: { clock?: Clock; logs?: string[] } = {},
): Promise<{ t: TestApp; part: () => TelegramPart; fakes: Fakes }> {
  const fakes: Fakes = {
    liveUsers: new Set(),
    liveAllowed: new Set(),
    liveOrders: [],
    answers: [],
    rulesOff: [],
    unknownOutcome: false,
    unknownKeys: [],
  };
  // The app's own trading, reached once it is built: the bot calls it only after that.
  let api: FastifyInstance | undefined;
  const realTrading = () => {
    if (api === undefined) throw new Error('the app is not built yet');
    return api.trading;
  };
  const trading: BotTrading = {
    account: async (userId) =>
      fakes.liveUsers.has(userId)
        ? { account: 'key-1', venue: 'binance', mode: 'live', keyHint: 'abcd…wxyz' }
        : realTrading().account(userId),
    venueOf: async (userId, account) =>
      account === 'key-1'
        ? { venue: 'binance', mode: 'live', keyHint: 'abcd…wxyz' }
        : realTrading().venueOf(userId, account),
    positions: (userId, account) => realTrading().positions(userId, account === 'key-1' ? 'paper' : account),
    balance: (userId) => realTrading().balance(userId),
    placeOrder: async (userId, request, key, account) => {
      if (account !== 'key-1') return realTrading().placeOrder(userId, request, key, { account });
      fakes.liveOrders.push({ userId, amount: request.amount });
      if (fakes.unknownOutcome) {
        fakes.unknownKeys.push(key);
        throw appError('OUTCOME_UNKNOWN');
      }
      return {
        ...LIVE_FILL,
        symbol: 'BTCUSDT',
        side: request.side === 'long' ? 'buy' : 'sell',
      } as OrderResponse;
    },
    reduce: (userId, account, request) => realTrading().reducePosition(userId, account, request),
    closeAll: (userId) => realTrading().closeAll(userId),
    findOrder: async (userId, key) =>
      fakes.unknownKeys.includes(key)
        ? ({ ...LIVE_FILL, symbol: 'BTCUSDT', side: 'buy' } as OrderResponse)
        : realTrading().findOrder(userId, key),
  };
  // The rest (the proposal's account, the activity log) is the app's own.
  const deps: TelegramOverrides = {
    liveOrdersAllowed: async (userId) => fakes.liveAllowed.has(userId),
    answerProposal: async (userId, decisionId, answer, via) => {
      fakes.answers.push({ userId, decisionId, answer, via });
      return { ok: true, message: `Confirmed: the rule's order for decision ${decisionId} went out.` };
    },
    turnRulesOff: async (userId) => {
      fakes.rulesOff.push(userId);
      return 'All 2 of your rules are off.';
    },
    trading,
    longPollSeconds: 1,
    outboxTickMs: 50,
    unknownLookupMs: 300,
    ...(opts.clock === undefined ? {} : { clock: opts.clock }),
  };
  const logs = opts.logs;
  const t = await startTestApp(
    target,
    { TELEGRAM_BOT_TOKEN: TOKEN, ...env, ...(logs === undefined ? {} : { LOG_LEVEL: 'debug' }) },
    {
      ...(logs === undefined
        ? {}
        : { logger: true, logStream: { write: (line: string) => void logs.push(line) } }),
      telegram: deps,
      onApi: (scope) => {
        api = scope;
      },
    },
  );
  return { t, fakes, part: (): TelegramPart => t.api.notifications.telegram };
}

export async function userOf(app: FastifyInstance, name: string) {
  const auth = await signUpAndLogIn(app, name);
  const me = (
    await app.inject({ url: '/api/users/me', headers: { authorization: auth.authorization } })
  ).json() as {
    id: string;
  };
  return { headers: { authorization: auth.authorization }, id: me.id };
}

export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 8000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
