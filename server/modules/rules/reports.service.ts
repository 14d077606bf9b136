import type { FastifyInstance } from 'fastify';
import type {
  BacktestRequest,
  BacktestResult,
  GapReport,
  PromotionReport,
} from '../../../src/contracts/rules';
import type { DecisionsRepo } from './decisions.repo';
import type { RiskService } from './risk.service';
import { gapReport, promotionReport } from './rule-reports';
import type { RulesService } from './rules.service';

export interface ReportsDeps {
  /** The user's own rule, or 404. */
  service: Pick<RulesService, 'get'>;
  repo: Pick<DecisionsRepo, 'decisionsOfRule'>;
  risk: Pick<RiskService, 'settings'>;
  backtest(userId: string, ruleId: string, body: BacktestRequest): Promise<BacktestResult>;
  trading: Pick<FastifyInstance['trading'], 'venueOf' | 'preview'>;
  /** The scorecard's prices after each signal, by signal id. */
  scorecardPrices: FastifyInstance['scorecardPrices'];
}

/**
 * The reads each report on one of a user's rules is made from (`rule-reports.ts` makes them): its
 * decisions, and for its promotion to a key also the scorecard's prices, a backtest, the venue's preview
 * of its order and the user's risk envelope.
 */
export class ReportsService {
  constructor(private readonly d: ReportsDeps) {}

  /** The reality gap of the rule's decisions on a key. */
  async gap(userId: string, ruleId: string): Promise<GapReport> {
    await this.d.service.get(userId, ruleId);
    return gapReport(ruleId, await this.d.repo.decisionsOfRule(userId, ruleId));
  }

  /** What the user reads before the rule goes to `account`. */
  async promotion(userId: string, ruleId: string, account: string): Promise<PromotionReport> {
    const rule = await this.d.service.get(userId, ruleId);
    const venue = await this.d.trading.venueOf(userId, account);
    const decisions = await this.d.repo.decisionsOfRule(userId, ruleId);
    const asset = rule.conditions.asset ?? decisions[0]?.asset ?? 'BTC';
    const [prices, tested, preview, limits] = await Promise.all([
      this.d.scorecardPrices(decisions.filter((d) => d.outcome === 'fired').map((d) => d.signalId)),
      this.d.backtest(userId, ruleId, { hold_minutes: rule.action.exit?.max_hold_minutes ?? 30 }),
      this.d.trading
        .preview(
          userId,
          {
            symbol: `${asset}/USDT`,
            side: rule.action.side,
            type: 'market',
            amount: rule.action.amount_usd,
          },
          account,
        )
        .catch((err: unknown) => ({
          refused: err instanceof Error && 'detail' in err ? String(err.detail) : 'The venue did not answer.',
        })),
      this.d.risk.settings(userId),
    ]);
    return promotionReport({
      ruleId,
      account,
      venue,
      decisions,
      prices,
      backtest: tested,
      preview,
      risk: limits,
    });
  }
}
