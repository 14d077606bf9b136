import type { AuthDeps } from '../../services/auth/flows';
import { AUTH_TEXT } from '../../services/auth/messages';
import { failure, muted, type OutputLine } from '../../services/terminal/output';
import type { CommandContext } from '../types';

/** The auth flows' dependencies from a command's context (the server names the device). */
export const authDeps = (ctx: CommandContext): AuthDeps => ({ main: ctx.api.main, stores: ctx.stores });

/** Spec §5: "You must be logged in.", and the login modal opens. Null when logged in. */
export function requireLogin(ctx: CommandContext): OutputLine[] | null {
  if (ctx.stores.session.isLoggedIn.peek()) return null;
  ctx.stores.ui.openAuthModal('login');
  return [failure(AUTH_TEXT.mustLogIn)];
}

export const CANCELLED: OutputLine[] = [muted('Cancelled.')];

/** Asks for a secret at the terminal (no echo); null when cancelled. */
export const askSecret = (ctx: CommandContext, label: string): Promise<string | null> =>
  ctx.stores.terminal.ask({ label, secret: true });
