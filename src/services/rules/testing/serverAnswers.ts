import type { z } from 'zod';
import {
  FlattenResult,
  GapReport,
  PromotionReport,
  RiskState,
  Rule,
  RuleList,
} from '../../../contracts/rules';
import answers from './server-answers.json';

/**
 * What the real server answered to the rules commands (recorded by `npm run fixtures:rules`, checked
 * against the server by tests/integration/rules-answers.test.ts): browser tests reply with these
 * instead of invented bodies.
 */
export type RulesAnswer = keyof typeof answers;

const parsed = <T extends z.ZodType>(schema: T, name: RulesAnswer): z.infer<T> =>
  schema.parse(answers[name].body);

export const recordedRule = (name: 'rule add sol' | 'rule add any' | 'rule paper') => parsed(Rule, name);
export const recordedRules = (name: 'rules none' | 'rules two') => parsed(RuleList, name);
export const recordedRisk = (name: 'risk' | 'rules off for 2h' | 'rules on' | 'risk set max-order 5k') =>
  parsed(RiskState, name);
export const recordedPromotion = () => parsed(PromotionReport, 'promotion to paper');
export const recordedGap = () => parsed(GapReport, 'gap');
export const recordedFlatten = () => parsed(FlattenResult, 'flatten');

/** The reply a fake server gives for a recorded answer. */
export const recordedReply = (name: RulesAnswer) => ({
  status: answers[name].status,
  body: answers[name].body,
});

/** The body the server was sent when it gave that answer (what the command should send too). */
export function recordedPayload(name: RulesAnswer): unknown {
  const { request } = answers[name];
  return 'payload' in request ? request.payload : undefined;
}
