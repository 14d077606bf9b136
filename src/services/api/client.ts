import { createFetch, type $Fetch } from 'ofetch';
import type { z } from 'zod';
import type { TokenStore } from '../stores/session';
import { bodyOf, statusOf } from './errors';
import { isAuthPath, type Refresher } from './refresh';

export type FetchImpl = typeof globalThis.fetch;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: Method;
  /** A JSON body, or form fields (sent as application/x-www-form-urlencoded). */
  body?: Record<string, unknown> | URLSearchParams;
  query?: Record<string, string | number | boolean>;
  /** Answer with the response body even for 4xx/5xx instead of throwing. */
  acceptErrors?: boolean;
  /** `blob` answers the body as a Blob (images); JSON otherwise. */
  responseType?: 'json' | 'blob';
  /** Extra request headers, e.g. `Idempotency-Key` (kept when the call is retried after a refresh). */
  headers?: Record<string, string>;
  /** Cancels the call (Ctrl+C on a running command); the call then rejects. */
  signal?: AbortSignal;
  /**
   * Asks the person to confirm it's them when the call answers `step_up_required` (then the call is sent
   * once more); null never asks. The client's own prompt when absent.
   */
  stepUp?: StepUpPrompt | null;
}

/** Asks for the password or a 2FA code and confirms the sign-in; resolves whether it was confirmed. */
export type StepUpPrompt = () => Promise<boolean>;

/** The path that confirms a sign-in: never itself retried after a confirmation. */
export const STEP_UP_PATH = '/auth/step-up';

/** True for the 403 a sensitive action answers without a recent confirmation. */
export function isStepUpRequired(error: unknown): boolean {
  const body = bodyOf(error);
  return (
    statusOf(error) === 403 &&
    typeof body === 'object' &&
    body !== null &&
    'code' in body &&
    body.code === 'step_up_required'
  );
}

/**
 * One prompt at a time: calls refused together (two tabs' worth of buttons, a chained line) share the
 * prompt already open and its answer.
 */
export function sharedPrompt(prompt: StepUpPrompt): StepUpPrompt {
  let open: Promise<boolean> | null = null;
  return () => {
    open ??= prompt().finally(() => {
      open = null;
    });
    return open;
  };
}

/** One API base. Every call carries cookies and, when there is one, the bearer token. */
export interface ApiClient {
  readonly baseURL: string;
  /** The response body, unchecked. Throws an ofetch `FetchError` (with `status` and `data`) on failure. */
  send(path: string, options?: RequestOptions): Promise<unknown>;
  /** The response body checked against `schema`. */
  call<S extends z.ZodType>(schema: S, path: string, options?: RequestOptions): Promise<z.output<S>>;
}

export interface ClientDeps {
  baseURL: string;
  fetch: FetchImpl;
  tokens: TokenStore;
  /** Shared by every client so that concurrent 401s on any base wait for the same refresh. */
  refresher: Refresher;
  /** Asks the person to confirm it's them (the browser's dialog); none by default. */
  stepUp?: StepUpPrompt;
}

/** The raw ofetch instance for a base: cookies on, no automatic retries (this module owns retrying). */
export function createRawFetch(baseURL: string, fetch: FetchImpl): $Fetch {
  return createFetch({ fetch }).create({ baseURL, credentials: 'include', retry: false });
}

export function createApiClient({ baseURL, fetch, tokens, refresher, stepUp }: ClientDeps): ApiClient {
  const raw = createRawFetch(baseURL, fetch);

  const attempt = (path: string, options: RequestOptions, token: string | null): Promise<unknown> => {
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const common = {
      method: options.method ?? 'GET',
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.query === undefined ? {} : { query: options.query }),
      ignoreResponseError: options.acceptErrors ?? false,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    return options.responseType === 'blob'
      ? raw(path, { ...common, responseType: 'blob' })
      : raw<unknown>(path, common);
  };

  const once = async (path: string, options: RequestOptions): Promise<unknown> => {
    const sentWith = tokens.getToken();
    // A call that carries the token ends with the sign-in (logout aborts it).
    const ended = sentWith === null ? undefined : tokens.signInEnded?.();
    const tied = ended === undefined ? null : either(ended, options.signal);
    const bound = tied === null ? options : { ...options, signal: tied.signal };
    try {
      return await attempt(path, bound, sentWith);
    } catch (error) {
      if (statusOf(error) !== 401 || isAuthPath(path) || bound.signal?.aborted === true) throw error;
      // Refused after this browser ended the sign-in (a logout crossing the call): nothing to refresh.
      if (sentWith !== null && tokens.getToken() === null) throw error;
      const token = await refresher.recover(sentWith);
      if (token === null) throw error;
      return await attempt(path, bound, token);
    } finally {
      tied?.release();
    }
  };

  // A sensitive action refused for want of a recent confirmation asks for one, then goes once more.
  const send = async (path: string, options: RequestOptions = {}): Promise<unknown> => {
    try {
      return await once(path, options);
    } catch (error) {
      const prompt = options.stepUp === undefined ? stepUp : options.stepUp;
      if (!isStepUpRequired(error) || path === STEP_UP_PATH || prompt == null) throw error;
      if (options.signal?.aborted === true || !(await prompt())) throw error;
      return once(path, options);
    }
  };

  return {
    baseURL,
    send,
    async call(schema, path, options) {
      return schema.parse(await send(path, options));
    },
  };
}

/**
 * A signal aborted when either is, and `release` to stop listening once the call is over (the sign-in's
 * signal outlives thousands of calls). By hand rather than `AbortSignal.any`, which browsers within the
 * build's target (Safari 16.4, Chrome 111) do not all have.
 */
function either(a: AbortSignal, b: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
  if (b === undefined || a.aborted) return { signal: a, release: () => undefined };
  if (b.aborted) return { signal: b, release: () => undefined };
  const both = new AbortController();
  const fromA = (): void => both.abort(a.reason);
  const fromB = (): void => both.abort(b.reason);
  a.addEventListener('abort', fromA, { once: true });
  b.addEventListener('abort', fromB, { once: true });
  return {
    signal: both.signal,
    release() {
      a.removeEventListener('abort', fromA);
      b.removeEventListener('abort', fromB);
    },
  };
}

/**
 * The same client with every call tied to `signal`: a command's calls stop when it is cancelled. With
 * `stepUp`, a call refused for want of a confirmation asks through it (the terminal's prompt).
 */
export function withSignal(client: ApiClient, signal: AbortSignal, stepUp?: StepUpPrompt): ApiClient {
  const send = (path: string, options: RequestOptions = {}): Promise<unknown> =>
    client.send(path, {
      ...options,
      signal: options.signal ?? signal,
      ...(stepUp === undefined || options.stepUp !== undefined ? {} : { stepUp }),
    });
  return {
    baseURL: client.baseURL,
    send,
    async call(schema, path, options) {
      return schema.parse(await send(path, options));
    },
  };
}
