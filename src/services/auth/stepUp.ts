import { signal, type ReadonlySignal } from '@preact/signals-core';
import {
  SIGN_IN_REQUIRED,
  STEP_UP_DETAILS,
  StepUpResponse,
  StepUpState,
  type StepUpRequest,
} from '../../contracts/auth';
import { STEP_UP_PATH, type ApiClient } from '../api/client';
import { bodyOf, errorMessage, statusOf } from '../api/errors';
import { isCodeShaped } from './messages';

/** What a person without a password or 2FA is told; the dialog offers to sign in again. */
export const STEP_UP_TEXT = {
  title: "Confirm it's you",
  intro: 'This action needs your password or a 2FA code, asked again every five minutes.',
  signInAgain: STEP_UP_DETAILS.signInAgain,
  failed: 'Could not confirm it was you. Please try again.',
  cancelled: 'Not confirmed: nothing was changed.',
} as const;

/** How the account can confirm when the server cannot be asked: with a password. */
const FALLBACK: StepUpState = { password: true, two_factor: false, confirmed_until: null };

/** `GET /auth/step-up`: what this account can confirm with. */
export async function stepUpState(main: ApiClient): Promise<StepUpState> {
  try {
    return await main.call(StepUpState, STEP_UP_PATH, { stepUp: null });
  } catch {
    return FALLBACK;
  }
}

/** The field's label for the account: password, 2FA code, or either. */
export function stepUpLabel(state: StepUpState): string {
  if (state.password && state.two_factor) return 'Password or 2FA code';
  return state.two_factor ? '2FA code' : 'Password';
}

/** What the one field holds: a code when it is shaped like one and the account has 2FA, else the password. */
export function stepUpBody(state: StepUpState, secret: string): StepUpRequest {
  const asCode = state.two_factor && (!state.password || isCodeShaped(secret, true));
  return asCode ? { code: secret.trim() } : { password: secret };
}

export type StepUpOutcome =
  | { ok: true }
  /** `signInAgain`: the account has nothing to confirm with; `final`: do not ask again now (429). */
  | { ok: false; message: string; signInAgain?: boolean; final?: boolean };

/** `POST /auth/step-up` with what the person typed. */
export async function confirmStepUp(
  main: ApiClient,
  state: StepUpState,
  secret: string,
): Promise<StepUpOutcome> {
  if (!state.password && !state.two_factor) {
    return { ok: false, message: STEP_UP_TEXT.signInAgain, signInAgain: true };
  }
  try {
    await main.call(StepUpResponse, STEP_UP_PATH, {
      method: 'POST',
      body: { ...stepUpBody(state, secret) },
      stepUp: null,
    });
    return { ok: true };
  } catch (error) {
    const body = bodyOf(error);
    const signInAgain =
      typeof body === 'object' && body !== null && 'code' in body && body.code === SIGN_IN_REQUIRED;
    return {
      ok: false,
      message: errorMessage(error, STEP_UP_TEXT.failed),
      ...(signInAgain ? { signInAgain: true } : {}),
      ...(statusOf(error) === 429 ? { final: true } : {}),
    };
  }
}

/** The open "Confirm it's you" dialog. */
export interface StepUpRequestView {
  state: StepUpState;
  /** The last failure (wrong password…), shown under the field. */
  error: string | null;
  busy: boolean;
  /** The account has nothing to confirm with: the dialog offers to sign in again instead. */
  signInAgain: boolean;
}

/**
 * The browser's step-up prompt: a call refused with `step_up_required` opens the "Confirm it's you"
 * dialog (the view mounts it while `request` is set); the call is sent again once it is confirmed, and
 * fails as it was when the dialog is cancelled.
 */
export interface StepUpModel {
  readonly request: ReadonlySignal<StepUpRequestView | null>;
  /** Opens the dialog; resolves whether the sign-in was confirmed. */
  ask(): Promise<boolean>;
  submit(secret: string): Promise<void>;
  cancel(): void;
  /** Gives up and sends the person to sign in again (accounts without a password or 2FA). */
  signInAgain(): void;
}

export function createStepUpModel(deps: {
  main: () => ApiClient;
  /** Ends the session and opens the login window. */
  signInAgain: () => void;
}): StepUpModel {
  const request = signal<StepUpRequestView | null>(null, { name: 'stepUp.request' });
  let settle: ((confirmed: boolean) => void) | null = null;

  const finish = (confirmed: boolean): void => {
    const done = settle;
    settle = null;
    request.value = null;
    done?.(confirmed);
  };

  return {
    request,
    async ask() {
      if (settle !== null) finish(false);
      const answer = new Promise<boolean>((resolve) => {
        settle = resolve;
      });
      const state = await stepUpState(deps.main());
      const nothing = !state.password && !state.two_factor;
      request.value = {
        state,
        error: nothing ? STEP_UP_TEXT.signInAgain : null,
        busy: false,
        signInAgain: nothing,
      };
      return answer;
    },
    async submit(secret) {
      const open = request.peek();
      if (open === null || open.busy) return;
      if (secret.trim() === '') {
        request.value = { ...open, error: `Enter your ${stepUpLabel(open.state).toLowerCase()}.` };
        return;
      }
      request.value = { ...open, busy: true, error: null };
      const outcome = await confirmStepUp(deps.main(), open.state, secret);
      if (request.peek() === null) return;
      if (outcome.ok) {
        finish(true);
        return;
      }
      request.value = {
        ...open,
        busy: false,
        error: outcome.message,
        signInAgain: outcome.signInAgain === true,
      };
    },
    cancel() {
      finish(false);
    },
    signInAgain() {
      finish(false);
      deps.signInAgain();
    },
  };
}
