import { findRule, rulesApi, shortId } from '../../services/rules/rules';
import type { CommandContext, CompletionProvider } from '../types';

/** The rules API bound to a command's context (its calls stop with the line, the store follows them). */
export const rulesApiOf = (ctx: CommandContext) => rulesApi(ctx.api.main, ctx.stores.rules);

/** The user's rule whose id starts with `typed`, loaded fresh (a failure says why not). */
export async function ruleById(ctx: CommandContext, typed: string) {
  const loaded = await rulesApiOf(ctx).load();
  return loaded.ok ? findRule(loaded.value, typed) : loaded;
}

/** The short ids of the user's rules (as `rules` lists them). */
export const ruleIds: CompletionProvider = ({ stores }) =>
  stores.rules.rules.peek().map((r) => shortId(r.id));
