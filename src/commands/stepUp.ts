import type { ApiClient, StepUpPrompt } from '../services/api';
import { STEP_UP_TEXT, confirmStepUp, stepUpLabel, stepUpState } from '../services/auth/stepUp';
import { failure, muted, success } from '../services/terminal/output';
import type { Stores } from '../services/stores';

/** Tries at the prompt before the command gives up (the server throttles guesses besides). */
export const STEP_UP_TRIES = 3;

/**
 * The terminal's step-up prompt: a command whose call needs a confirmed sign-in (`key add`, a looser
 * `risk set`, unlinking the last wallet) asks for the password, or a 2FA code, right at the prompt with
 * the input masked, then its call goes once more. Ctrl+C or an empty answer gives up.
 */
export function terminalStepUp(deps: {
  main: ApiClient;
  terminal: Stores['terminal'];
  signal: AbortSignal;
}): StepUpPrompt {
  return async () => {
    const { terminal } = deps;
    const state = await stepUpState(deps.main);
    if (!state.password && !state.two_factor) {
      terminal.print([failure(`${STEP_UP_TEXT.signInAgain} Type logout, then sign in again.`)]);
      return false;
    }
    terminal.print([muted(`${STEP_UP_TEXT.title}: ${STEP_UP_TEXT.intro}`)]);
    const label = `${stepUpLabel(state)}: `;
    for (let attempt = 0; attempt < STEP_UP_TRIES; attempt++) {
      if (deps.signal.aborted) return false;
      const secret = await terminal.ask({ label, secret: true });
      if (secret === null || secret.trim() === '') return false;
      const outcome = await confirmStepUp(deps.main, state, secret);
      if (outcome.ok) {
        terminal.print([success('Confirmed.')]);
        return true;
      }
      terminal.print([failure(outcome.message)]);
      if (outcome.signInAgain === true || outcome.final === true) return false;
    }
    return false;
  };
}
