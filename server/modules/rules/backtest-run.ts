import type { FastifyInstance } from 'fastify';
import type { BacktestRequest, BacktestResult } from '../../../src/contracts/rules';
import type { Clock } from '../market/clock';
import type { RiskService } from './risk.service';
import { backtest } from './rule-backtest';
import type { RulesService } from './rules.service';

const BACKTEST_SIGNALS = 20_000;
/** The furthest back a backtest replays. */
const BACKTEST_MAX_DAYS = 365;

/**
 * A user's backtest of one of their rules: the stored news of the period (without days asked for, all
 * that is stored, so that a default run replays what is here), the market's candles, and the cooldown
 * per asset of the user's risk envelope.
 */
export function backtestRunner(app: FastifyInstance, service: RulesService, risk: RiskService, clock: Clock) {
  return async (userId: string, ruleId: string, body: BacktestRequest): Promise<BacktestResult> => {
    const [rule, limits] = await Promise.all([service.get(userId, ruleId), risk.settings(userId)]);
    const now = clock.now();
    const history = await app.news.history(
      new Date(now - (body.days ?? BACKTEST_MAX_DAYS) * 86_400_000),
      new Date(now),
      BACKTEST_SIGNALS,
    );
    return backtest({
      rule,
      ...(body.days === undefined ? {} : { days: body.days }),
      holdMinutes: body.hold_minutes,
      cooldownMinutes: limits.cooldown_minutes,
      now,
      signals: history.signals,
      since: history.since,
      candles: (symbol, interval, limit) => app.market.klines({ symbol, interval, limit }),
      priceSource: app.market.kind === 'sim' ? 'simulated prices' : 'Binance prices',
    });
  };
}
