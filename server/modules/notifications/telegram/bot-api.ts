/**
 * The few Bot API calls the bot makes (https://core.telegram.org/bots/api), and the two ways one fails:
 * Telegram said no (`{ok:false, error_code, description, parameters?}`), or it could not be reached. The
 * token sits in every URL (`/bot<token>/method`), so no URL and no message that could carry it leaves here.
 */
import { z } from 'zod';

export interface BotApiOptions {
  /** https://api.telegram.org */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  /** Per call, on top of a long poll's own timeout (default 15 s). */
  timeoutMs?: number;
}

/** Telegram answered `ok: false`: `status` is `error_code`, `retryAfter` (seconds) comes with a 429. */
export class BotApiError extends Error {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly description: string,
    readonly retryAfter: number | undefined,
  ) {
    super(`Telegram ${method}: ${status} ${description}`);
    this.name = 'BotApiError';
  }

  /** Worth trying again later: rate limited, or a fault on Telegram's side. */
  get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** Telegram could not be reached or did not answer in time; nothing says whether the call was done. */
export class BotApiUnreachable extends Error {
  constructor(
    readonly method: string,
    reason: string,
  ) {
    super(`Telegram ${method}: unreachable (${reason})`);
    this.name = 'BotApiUnreachable';
  }
}

/** Replaces the token wherever it appears (a URL in a fetch error's message or cause). */
export function redact(text: string, token: string): string {
  return token === '' ? text : text.split(token).join('<token>');
}

const chatId = z.number().int().refine(Number.isSafeInteger, { error: 'not a safe integer' });

/**
 * The parts of an update the bot reads, as Telegram documents them, checked at the edge: an update that
 * does not match (a chat id that is not a number, a text that is not a string) is not the bot's to act on.
 * Other fields are dropped, except in a channel post: that goes to the news source, which reads it itself.
 */
const TgUserSchema = z.object({
  id: chatId,
  is_bot: z.boolean().optional(),
  username: z.string().max(64).optional(),
  first_name: z.string().max(256).optional(),
});

const TgChatSchema = z.object({
  id: chatId,
  type: z.string().max(32),
  title: z.string().max(256).optional(),
  username: z.string().max(64).optional(),
});

const TgMessageSchema = z.object({
  message_id: z.number().int(),
  date: z.number().int(),
  chat: TgChatSchema,
  from: TgUserSchema.optional(),
  text: z.string().max(8192).optional(),
  caption: z.string().max(8192).optional(),
});

const TgCallbackQuerySchema = z.object({
  id: z.string().min(1).max(256),
  from: TgUserSchema,
  message: TgMessageSchema.optional(),
  data: z.string().max(256).optional(),
});

export const TgUpdateSchema = z.object({
  update_id: z.number().int().nonnegative(),
  message: TgMessageSchema.optional(),
  channel_post: z.looseObject({ chat: z.looseObject({ id: chatId }) }).optional(),
  callback_query: TgCallbackQuerySchema.optional(),
});

export type TgUser = z.infer<typeof TgUserSchema>;
export type TgChat = z.infer<typeof TgChatSchema>;
export type TgMessage = z.infer<typeof TgMessageSchema>;
export type TgCallbackQuery = z.infer<typeof TgCallbackQuerySchema>;
export type TgUpdate = z.infer<typeof TgUpdateSchema>;

/** The update, or null when it is not one the bot can read; `id` is its update_id when it has one. */
export function parseUpdate(raw: unknown): { update: TgUpdate | null; id: number | null } {
  const parsed = TgUpdateSchema.safeParse(raw);
  if (parsed.success) return { update: parsed.data, id: parsed.data.update_id };
  const id = typeof raw === 'object' && raw !== null ? (raw as { update_id?: unknown }).update_id : null;
  return { update: null, id: typeof id === 'number' && Number.isSafeInteger(id) ? id : null };
}

export class BotApi {
  private readonly base: string;
  private readonly http: typeof fetch;

  constructor(private readonly o: BotApiOptions) {
    this.base = o.baseUrl.replace(/\/+$/, '');
    this.http = o.fetch ?? fetch;
  }

  /**
   * Calls `method` with JSON parameters and answers its `result`; throws BotApiError when Telegram says
   * no, BotApiUnreachable when it cannot be asked. `extraMs` lengthens the timeout (a long poll).
   */
  async call<T>(
    method: string,
    params: Record<string, unknown> = {},
    opts: { signal?: AbortSignal; extraMs?: number } = {},
  ): Promise<T> {
    const timeout = AbortSignal.timeout((this.o.timeoutMs ?? 15_000) + (opts.extraMs ?? 0));
    const signal = opts.signal === undefined ? timeout : AbortSignal.any([timeout, opts.signal]);
    let res: Response;
    let body: unknown;
    try {
      res = await this.http(`${this.base}/bot${this.o.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        signal,
      });
      body = await res.json().catch(() => null);
    } catch (err) {
      // A fetch error's message or cause may name the URL, and so the token: keep only a redacted reason.
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      const reason =
        typeof cause?.code === 'string' ? cause.code : err instanceof Error ? err.name : 'fetch failed';
      throw new BotApiUnreachable(method, redact(reason, this.o.token));
    }
    const answer = body as {
      ok?: unknown;
      result?: unknown;
      error_code?: unknown;
      description?: unknown;
      parameters?: { retry_after?: unknown };
    } | null;
    if (answer?.ok === true) return answer.result as T;
    const status = typeof answer?.error_code === 'number' ? answer.error_code : res.status;
    const description =
      typeof answer?.description === 'string'
        ? redact(answer.description, this.o.token)
        : `HTTP ${res.status}`;
    const retryAfter =
      typeof answer?.parameters?.retry_after === 'number' ? answer.parameters.retry_after : undefined;
    throw new BotApiError(method, status, description, retryAfter);
  }
}
