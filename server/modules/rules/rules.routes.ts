import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BacktestRequest,
  BacktestResult,
  Decision,
  FlattenResult,
  GapReport,
  KillSwitchRequest,
  PromotionReport,
  RuleAccountChange,
  LedgerQuery,
  RiskState,
  RiskUpdate,
  Rule,
  RuleAnswer,
  RuleAnswerResult,
  RuleCreate,
  RuleList,
  type RiskSettings,
  RulePatch,
} from '../../../src/contracts/rules';
import { appError } from '../../plugins/errors';
import type { OrderVenue } from '../../../src/contracts/trading';
import type { RiskService } from './risk.service';
import { checkRuleMinimum, type MinimumOf, type RuleOrderShape } from './rule-minimum';
import type { RulesService } from './rules.service';

export interface RulesRouteDeps {
  service: RulesService;
  risk: RiskService;
  backtest(userId: string, ruleId: string, body: BacktestRequest): Promise<BacktestResult>;
  /** The mode of one of the user's accounts ('paper' or a key id); 404 for a key that is not theirs. */
  venueOf(userId: string, account: string): Promise<OrderVenue>;
  /** Closes every position the user's rules opened, on every account. */
  flatten(userId: string): Promise<{ closed: number; gone: number; failed: string[] }>;
  gap(userId: string, ruleId: string): Promise<GapReport>;
  promotion(userId: string, ruleId: string, account: string): Promise<PromotionReport>;
  /** The smallest order the account's venue takes on the asset (its filters; paper's for paper). */
  minimumOrder: MinimumOf;
}

const PromotionQuery = z.object({ account: RuleAccountChange.shape.account });

function userOf(request: FastifyRequest): string {
  if (request.principal === null) throw appError('UNAUTHORIZED');
  return request.principal.userId;
}

const IdParam = z.object({ id: z.uuid({ error: 'Rule id must be a UUID.' }) });
const DecisionParam = z.object({
  id: z.string().regex(/^[1-9]\d{0,17}$/, { error: 'Decision id must be a number such as 42.' }),
});
const Deleted = z.undefined().describe('Deleted');
/** A backtest asked for without a body: the request's own defaults. */
const BACKTEST_DEFAULTS = BacktestRequest.parse({});

/** A wider slippage cap, or none where there was one, lets orders fill further from the price. */
function slippageLoosens(now: number | null, next: number | null | undefined): boolean {
  if (next === undefined || now === null) return false;
  return next === null || next > now;
}

/**
 * Whether a change makes any limit of the risk envelope looser than the stored one: a larger max order,
 * daily budget, number of positions or signal age, or a shorter cooldown.
 */
export function loosens(current: RiskSettings, change: RiskUpdate): boolean {
  const above = (next: number | undefined, now: number) => next !== undefined && next > now;
  return (
    above(change.max_order_usd, current.max_order_usd) ||
    above(change.daily_budget_usd, current.daily_budget_usd) ||
    above(change.max_positions, current.max_positions) ||
    above(change.max_age_seconds, current.max_age_seconds) ||
    above(change.live_max_order_usd, current.live_max_order_usd) ||
    above(change.live_daily_budget_usd, current.live_daily_budget_usd) ||
    (change.cooldown_minutes !== undefined && change.cooldown_minutes < current.cooldown_minutes) ||
    slippageLoosens(current.max_slippage_pct, change.max_slippage_pct)
  );
}

/** `/rules/` (docs/product.md §7) plus PATCH, the risk envelope and kill switch, the decision ledger and the backtest. */
export function registerRulesRoutes(instance: FastifyInstance, deps: RulesRouteDeps): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const { service, risk } = deps;
  const authed = { preValidation: app.requireUser };

  /** A rule may trade only on the user's own accounts; sending it to a LIVE key needs step-up. */
  const checkAccount = async (request: FastifyRequest, account: string | undefined) => {
    if (account === undefined || account === 'paper') return;
    if ((await deps.venueOf(userOf(request), account)).mode === 'live') await app.requireStepUp(request);
  };

  /** A rule its venue would refuse every order of (below its minimum) is a 422 when saved. */
  const belowMinimum = (request: FastifyRequest, r: RuleOrderShape) =>
    checkRuleMinimum(deps.minimumOrder, userOf(request), r);

  app.get(
    '/rules/',
    { ...authed, schema: { summary: 'Your rules', response: { 200: RuleList } } },
    async (request) => service.list(userOf(request)),
  );

  const createSchema = { summary: 'Add a rule', body: RuleCreate, response: { 201: Rule } };
  app.post('/rules/', { ...authed, schema: createSchema }, async (request, reply) => {
    const body = request.body;
    await checkAccount(request, body.action.account);
    await belowMinimum(request, {
      asset: body.conditions.asset,
      amount: body.action.amount_usd,
      account: body.action.account,
    });
    reply.code(201);
    return service.create(userOf(request), body);
  });

  const patchSchema = { summary: 'Change a rule', params: IdParam, body: RulePatch, response: { 200: Rule } };
  app.patch('/rules/:id', { ...authed, schema: patchSchema }, async (request) => {
    const { id } = request.params;
    const patch = request.body;
    await checkAccount(request, patch.action?.account);
    if (patch.conditions !== undefined || patch.action !== undefined) {
      const current = await service.get(userOf(request), id);
      await belowMinimum(request, {
        asset: patch.conditions === undefined ? current.conditions.asset : patch.conditions.asset,
        amount: patch.action?.amount_usd ?? current.action.amount_usd,
        account: patch.action?.account ?? current.action.account,
      });
    }
    return service.update(userOf(request), id, patch);
  });

  const accountSchema = {
    summary: "Move a rule's orders to paper or to one of your keys",
    description: 'To a LIVE key this needs a sign-in confirmed in the last minutes (403 step_up_required).',
    params: IdParam,
    body: RuleAccountChange,
    response: { 200: Rule },
  };
  app.post('/rules/:id/account', { ...authed, schema: accountSchema }, async (request) => {
    const { id } = request.params;
    const { account } = request.body;
    const current = await service.get(userOf(request), id);
    await checkAccount(request, account);
    await belowMinimum(request, {
      asset: current.conditions.asset,
      amount: current.action.amount_usd,
      account,
    });
    return service.setAccount(userOf(request), id, account);
  });

  const promotionSchema = {
    summary: 'Before a rule goes live: its paper record, its backtest and what the venue changes',
    params: IdParam,
    querystring: PromotionQuery,
    response: { 200: PromotionReport },
  };
  app.get('/rules/:id/promotion', { ...authed, schema: promotionSchema }, async (request) => {
    const { id } = request.params;
    const { account } = request.query;
    return deps.promotion(userOf(request), id, account);
  });

  const gapSchema = {
    summary: "A rule's reality gap: its fills on keys against paper twins and the news's price",
    params: IdParam,
    response: { 200: GapReport },
  };
  app.get('/rules/:id/gap', { ...authed, schema: gapSchema }, async (request) => {
    const { id } = request.params;
    return deps.gap(userOf(request), id);
  });

  const deleteSchema = { summary: 'Delete a rule', params: IdParam, response: { 204: Deleted } };
  app.delete('/rules/:id', { ...authed, schema: deleteSchema }, async (request, reply) => {
    const { id } = request.params;
    await service.remove(userOf(request), id);
    reply.code(204);
  });

  const ledgerSchema = {
    summary: 'What the rules decided, newest first',
    querystring: LedgerQuery,
    response: { 200: z.array(Decision) },
  };
  app.get('/rules/ledger', { ...authed, schema: ledgerSchema }, async (request) =>
    service.ledger(userOf(request), request.query),
  );

  const answerSchema = {
    summary: "Confirm or reject an ask rule's proposal",
    description:
      "The first answer wins, from whichever channel (browser, terminal, Telegram): a later one gets 409 saying where it was answered, or that the window closed. A confirmation checks the risk envelope and the headline's age again before the order goes out.",
    params: DecisionParam,
    body: RuleAnswer,
    response: { 200: RuleAnswerResult },
  };
  app.post('/rules/decisions/:id/answer', { ...authed, schema: answerSchema }, async (request) => {
    const { answer, via } = request.body;
    return service.answer(userOf(request), request.params.id, answer, via);
  });

  const csvSchema = {
    summary: 'The decision ledger as CSV',
    response: { 200: { description: 'A CSV file', content: { 'text/csv': { schema: z.string() } } } },
  };
  app.get('/rules/ledger.csv', { ...authed, schema: csvSchema }, async (request, reply) => {
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', 'attachment; filename="rule-decisions.csv"');
    return service.ledgerCsv(userOf(request));
  });

  const riskSchema = { summary: 'The risk envelope and kill switch', response: { 200: RiskState } };
  app.get('/rules/risk', { ...authed, schema: riskSchema }, async (request) => risk.state(userOf(request)));

  const riskUpdateSchema = {
    summary: 'Change the risk envelope',
    description: 'Loosening any limit needs a sign-in confirmed in the last minutes (403 step_up_required).',
    body: RiskUpdate,
    response: { 200: RiskState },
  };
  app.put('/rules/risk', { ...authed, schema: riskUpdateSchema }, async (request) => {
    const change = request.body;
    // Tightening the envelope is always welcome; loosening any limit needs a confirmed sign-in.
    if (loosens(await risk.settings(userOf(request)), change)) await app.requireStepUp(request);
    return risk.update(userOf(request), change);
  });

  const killSchema = {
    summary: 'Stop (or resume) every rule',
    description:
      'Turning it off (resuming), or a timed stop that lifts sooner than the stop in place (one without end is the latest), needs a sign-in confirmed in the last minutes (403 step_up_required).',
    body: KillSwitchRequest,
    response: { 200: RiskState },
  };
  app.post('/rules/kill-switch', { ...authed, schema: killSchema }, async (request) => {
    const userId = userOf(request);
    const { on, resume_in_minutes: minutes } = request.body;
    // Stopping is always welcome; starting automated orders again is confirmed like a loosened limit,
    // and so is a timed stop that would lift sooner than the one in place.
    const timed = on && minutes !== undefined ? await risk.stopUnlessSooner(userId, minutes) : null;
    let state = timed;
    if (state === null) {
      if (!on || minutes !== undefined) await app.requireStepUp(request);
      state = await risk.killSwitch(userId, on, minutes);
    }
    await app.activity.record(userId, { kind: 'kill_switch', detail: { on: String(on) } });
    return state;
  });

  const flattenSchema = {
    summary: 'Stop every rule and close every position rules opened, on every account',
    response: { 200: FlattenResult },
  };
  app.post('/rules/flatten', { ...authed, schema: flattenSchema }, async (request) => {
    const userId = userOf(request);
    await risk.killSwitch(userId, true);
    await app.activity.record(userId, { kind: 'kill_switch', detail: { on: 'true', flatten: 'true' } });
    return deps.flatten(userId);
  });

  const backtestSchema = {
    summary: 'Replay a rule over past signals',
    params: IdParam,
    body: BacktestRequest.optional().describe('Without a body, the defaults.'),
    response: { 200: BacktestResult },
  };
  app.post('/rules/:id/backtest', { ...authed, schema: backtestSchema }, async (request) => {
    const { id } = request.params;
    return deps.backtest(userOf(request), id, request.body ?? BACKTEST_DEFAULTS);
  });
}
