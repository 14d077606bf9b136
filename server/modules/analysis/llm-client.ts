/**
 * A small OpenAI-compatible chat-completions client: one POST to `{baseUrl}/chat/completions` with a
 * timeout, retries with exponential back-off on 429/5xx and network errors (honouring `retry-after-ms`
 * and `retry-after`), and a cap on concurrent requests. No SDK: the protocol is one JSON request.
 */

import { backoffMs, retryAfterMs } from '../../../src/contracts/backoff';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts after the first. */
  maxRetries: number;
  /** Requests in flight at once; the rest wait their turn. */
  concurrency: number;
  /** First back-off; doubled each retry, with jitter, up to `maxBackoffMs`. */
  backoffMs: number;
  /** A `retry-after` longer than this gives up instead of waiting. */
  maxBackoffMs: number;
}

export const DEFAULT_LLM_OPTIONS = {
  timeoutMs: 15_000,
  maxRetries: 2,
  concurrency: 4,
  backoffMs: 500,
  maxBackoffMs: 10_000,
} satisfies Partial<LlmOptions>;

export interface LlmDeps {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/** Why a completion failed; `code` is OpenAI's (`invalid_api_key`, `rate_limit_exceeded`) when sent. */
export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

interface OpenAiErrorBody {
  error?: { message?: string; code?: string | null; type?: string };
}

/** OpenAI's `retry-after-ms` when it is a number, else the standard `retry-after`. */
function retryAfter(headers: Headers): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms)) return Math.max(0, ms);
  return retryAfterMs(headers.get('retry-after'));
}

export class LlmClient {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly controllers = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly opts: LlmOptions,
    private readonly deps: LlmDeps,
  ) {}

  /** Requests in flight now (for tests and metrics). */
  get inFlight(): number {
    return this.active;
  }

  /** The assistant message's content; throws `LlmError` when every attempt failed. */
  async complete(body: Record<string, unknown>): Promise<string> {
    await this.acquire();
    try {
      let attempt = 0;
      for (;;) {
        try {
          return await this.once(body);
        } catch (err) {
          const e = err instanceof LlmError ? err : new LlmError(String(err), null, null, true);
          if (!e.retryable || attempt >= this.opts.maxRetries || this.closed) throw e;
          const wait =
            e.retryAfterMs ??
            backoffMs(attempt, {
              baseMs: this.opts.backoffMs,
              maxMs: this.opts.maxBackoffMs,
              jitter: 'equal',
              random: this.deps.random,
            });
          if (wait > this.opts.maxBackoffMs) throw e;
          attempt += 1;
          await this.deps.sleep(wait);
        }
      }
    } finally {
      this.release();
    }
  }

  /** Aborts requests in flight; later calls fail at once. */
  close(): void {
    this.closed = true;
    for (const c of this.controllers) c.abort(new LlmError('client closed', null, null, false));
  }

  private async once(body: Record<string, unknown>): Promise<string> {
    if (this.closed) throw new LlmError('client closed', null, null, false);
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(
      () =>
        controller.abort(new LlmError(`timed out after ${this.opts.timeoutMs} ms`, null, 'timeout', true)),
      this.opts.timeoutMs,
    );
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
      const res = await this.deps.fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, ...body }),
        signal: controller.signal,
      });
      const text = await res.text();
      if (!res.ok) {
        let detail: OpenAiErrorBody = {};
        try {
          detail = JSON.parse(text) as OpenAiErrorBody;
        } catch {
          // not JSON: keep the status alone
        }
        const retryable = res.status === 429 || res.status >= 500 || res.status === 408;
        throw new LlmError(
          `LLM endpoint answered ${res.status}: ${detail.error?.message ?? text.slice(0, 200)}`,
          res.status,
          detail.error?.code ?? null,
          retryable,
          retryAfter(res.headers),
        );
      }
      const parsed = JSON.parse(text) as { choices?: { message?: { content?: string | null } }[] };
      const content = parsed.choices?.[0]?.message?.content;
      if (typeof content !== 'string')
        throw new LlmError('LLM answer has no message content', res.status, null, false);
      return content;
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof LlmError)
        throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.opts.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }
}
