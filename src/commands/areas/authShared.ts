import { completeTwoFactor, type AuthDeps, type LoginOutcome } from '../../services/auth/flows';
import { failure, muted, success, type OutputLine } from '../../services/terminal/output';
import { approveOrder } from '../../services/trading/account';
import type { CommandContext } from '../types';

/** The auth flows' dependencies from a command's context (the server names the device). */
export const authDeps = (ctx: CommandContext): AuthDeps => ({ main: ctx.api.main, stores: ctx.stores });

export const CANCELLED: OutputLine[] = [muted('Cancelled.')];

/** Yes to a `[y/N]` question: `y` or `yes`, any case; everything else (and Ctrl+C) is no. */
export const confirmedAtPrompt = async (ctx: CommandContext, question: string): Promise<boolean> => {
  const answer = await ctx.stores.terminal.ask({ label: `${question} [y/N] `, secret: false });
  return answer !== null && /^y(es)?$/i.test(answer.trim());
};

/** The first order of a session on a real-exchange account asks first, at the prompt. */
export const approveAtPrompt = (ctx: CommandContext): Promise<boolean> =>
  approveOrder(ctx.stores.account, (question) => confirmedAtPrompt(ctx, question));

/** Asks for a secret at the terminal (no echo); null when cancelled. */
export const askSecret = (ctx: CommandContext, label: string): Promise<string | null> =>
  ctx.stores.terminal.ask({ label, secret: true });

/**
 * The end of every terminal sign-in (password or wallet): the 2FA code when the server asks for one,
 * then the answer; `fallbackName` names the account when the session has none yet.
 */
export async function finishLogin(
  ctx: CommandContext,
  first: LoginOutcome,
  fallbackName: string,
): Promise<OutputLine[]> {
  let outcome = first;
  if (outcome.ok === 'two-factor') {
    const code = await ctx.stores.terminal.ask({ label: '2FA code: ', secret: false });
    if (code === null) {
      ctx.stores.auth.setPendingTwoFactor(null);
      return CANCELLED;
    }
    outcome = await completeTwoFactor(authDeps(ctx), code);
  }
  if (outcome.ok !== true) return [failure(outcome.ok === false ? outcome.message : '')];
  ctx.stores.ui.closeAuthModal();
  return [success(`Logged in as ${ctx.stores.session.user.peek()?.username ?? fallbackName}.`)];
}
