import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local double, on 127.0.0.1, of the Telegram Bot API as the bot uses it (core.telegram.org/bots/api):
 * `getMe`, `getUpdates` (offset confirms, `timeout` long-polls, a newer poll ends an older one with 409,
 * 409 while a webhook is set), `sendMessage`, `editMessageText`, `answerCallbackQuery`, `setWebhook`,
 * `deleteWebhook`. The token must be in the path (`/bot<token>/<method>`), or 401 as Telegram answers.
 * Errors have Telegram's shape: `{ok:false, error_code, description, parameters?}`. Tests can queue a
 * refusal (429 with retry_after, 5xx, 400, 403), take it down (connections refused) and bring it back on
 * the same port, and read what was sent.
 */

export interface DoubleUpdate {
  update_id: number;
  [key: string]: unknown;
}

export interface SentMessage {
  chat_id: number;
  message_id: number;
  /** The text as the chat shows it (HTML markup taken out, entities read), as Telegram answers it. */
  text: string;
  /** The text as sent. */
  raw: string;
  parse_mode?: string;
  reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
  /** When it was received (ms, Date.now()). */
  at: number;
  edits: number;
}

export interface Call {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

export interface Refusal {
  code: number;
  description: string;
  retry_after?: number;
}

const MAX_TEXT = 4096;
const HTML_TAGS =
  /<\/?(b|strong|i|em|u|ins|s|strike|del|code|pre|a(\s+href="[^"]*")?|tg-spoiler|blockquote)>/g;

function error(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(refusal.code, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      ok: false,
      error_code: refusal.code,
      description: refusal.description,
      ...(refusal.retry_after === undefined ? {} : { parameters: { retry_after: refusal.retry_after } }),
    }),
  );
}

function ok(res: ServerResponse, result: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: true, result }));
}

async function paramsOf(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = req.headers['content-type'] ?? '';
  if (raw !== '' && type.includes('application/json')) Object.assign(params, JSON.parse(raw) as object);
  else if (raw !== '') Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
  // Form and query values are strings; JSON-encoded ones (allowed_updates, reply_markup) are read as JSON.
  for (const [k, v] of Object.entries(params)) {
    if (typeof v === 'string' && /^[[{]/.test(v)) params[k] = JSON.parse(v) as unknown;
  }
  return params;
}

/** The text a chat shows for `params` (Telegram answers a message with it, markup turned into entities). */
function shown(params: Record<string, unknown>): string {
  const text = String(params.text);
  if (params.parse_mode !== 'HTML') return text;
  return text
    .replace(HTML_TAGS, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** What Telegram says of HTML it cannot parse (an unescaped `<` or `&`). */
function htmlProblem(text: string): string | null {
  const stripped = text.replace(HTML_TAGS, '');
  if (stripped.includes('<')) return "Bad Request: can't parse entities: unsupported start tag";
  if (/&(?!(lt|gt|amp|quot|#\d+);)/.test(stripped))
    return "Bad Request: can't parse entities: unsupported entity";
  return null;
}

export async function startTelegramBotDouble(token: string, opts: { username?: string } = {}) {
  const username = opts.username ?? 'signal_console_test_bot';
  const updates: DoubleUpdate[] = [];
  let nextUpdateId = 1;
  const refusals = new Map<string, Refusal[]>();
  const calls: Call[] = [];
  const messages: SentMessage[] = [];
  const blocked = new Set<number>();
  const callbackAnswers: { callback_query_id: string; text?: string }[] = [];
  let webhook: { url: string; secret_token?: string } | null = null;
  let conflicts = 0;
  let unauthorized = 0;
  let pending: { res: ServerResponse; offset: number; timer: NodeJS.Timeout } | null = null;
  let port = 0;
  let server: Server | null = null;
  const sockets = new Set<Socket>();

  const answerPoll = () => {
    if (pending === null) return;
    const { res, offset, timer } = pending;
    const ready = updates.filter((u) => u.update_id >= offset);
    if (ready.length === 0) return;
    clearTimeout(timer);
    pending = null;
    ok(res, ready.slice(0, 100));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (match === null || match[1] !== token) {
      unauthorized += 1;
      return error(res, { code: 401, description: 'Unauthorized' });
    }
    const method = match[2] ?? '';
    const params = await paramsOf(req, url);
    calls.push({ method, params, at: Date.now() });
    const refusal = refusals.get(method)?.shift() ?? refusals.get('*')?.shift();
    if (refusal !== undefined) return error(res, refusal);
    const chatId = Number(params.chat_id);
    switch (method) {
      case 'getMe':
        return ok(res, { id: Number(token.split(':')[0]), is_bot: true, first_name: 'Test bot', username });
      case 'setWebhook': {
        const secret = params.secret_token;
        if (typeof secret === 'string' && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
          return error(res, {
            code: 400,
            description: 'Bad Request: secret token contains unallowed characters',
          });
        }
        webhook = {
          url: String(params.url),
          ...(typeof secret === 'string' ? { secret_token: secret } : {}),
        };
        return ok(res, true);
      }
      case 'deleteWebhook':
        webhook = null;
        return ok(res, true);
      case 'getUpdates': {
        if (webhook !== null) {
          conflicts += 1;
          return error(res, {
            code: 409,
            description:
              "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
          });
        }
        const offset = Number(params.offset ?? 0);
        // An offset confirms every update before it: they are gone for good.
        if (offset > 0)
          for (let i = updates.length - 1; i >= 0; i -= 1)
            if ((updates[i]?.update_id ?? 0) < offset) updates.splice(i, 1);
        if (pending !== null) {
          // Telegram ends the older of two polls at once.
          conflicts += 1;
          clearTimeout(pending.timer);
          error(pending.res, {
            code: 409,
            description:
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          });
          pending = null;
        }
        const timeout = Math.min(Number(params.timeout ?? 0), 50);
        const timer = setTimeout(() => {
          if (pending?.res === res) pending = null;
          ok(res, []);
        }, timeout * 1000);
        pending = { res, offset, timer };
        req.on('close', () => {
          if (pending?.res === res && !res.writableEnded) {
            clearTimeout(timer);
            pending = null;
          }
        });
        return answerPoll();
      }
      case 'sendMessage': {
        if (!Number.isFinite(chatId))
          return error(res, { code: 400, description: 'Bad Request: chat not found' });
        if (blocked.has(chatId))
          return error(res, { code: 403, description: 'Forbidden: bot was blocked by the user' });
        const problem = textProblem(params);
        if (problem !== null) return error(res, { code: 400, description: problem });
        const message: SentMessage = {
          chat_id: chatId,
          message_id: messages.filter((m) => m.chat_id === chatId).length + 1,
          text: shown(params),
          raw: String(params.text),
          ...(typeof params.parse_mode === 'string' ? { parse_mode: params.parse_mode } : {}),
          ...(params.reply_markup === undefined
            ? {}
            : { reply_markup: params.reply_markup as SentMessage['reply_markup'] }),
          at: Date.now(),
          edits: 0,
        };
        messages.push(message);
        return ok(res, {
          message_id: message.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: 'private' },
          text: message.text,
        });
      }
      case 'editMessageText': {
        const found = messages.find(
          (m) => m.chat_id === chatId && m.message_id === Number(params.message_id),
        );
        if (found === undefined)
          return error(res, { code: 400, description: 'Bad Request: message to edit not found' });
        if (blocked.has(chatId))
          return error(res, { code: 403, description: 'Forbidden: bot was blocked by the user' });
        const problem = textProblem(params);
        if (problem !== null) return error(res, { code: 400, description: problem });
        const markup = params.reply_markup as SentMessage['reply_markup'];
        if (
          found.text === params.text &&
          JSON.stringify(found.reply_markup ?? null) === JSON.stringify(markup ?? null)
        ) {
          return error(res, {
            code: 400,
            description:
              'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          });
        }
        found.text = shown(params);
        found.raw = String(params.text);
        if (markup === undefined) delete found.reply_markup;
        else found.reply_markup = markup;
        found.edits += 1;
        return ok(res, {
          message_id: found.message_id,
          chat: { id: chatId, type: 'private' },
          text: found.text,
        });
      }
      case 'answerCallbackQuery': {
        if (typeof params.callback_query_id !== 'string')
          return error(res, {
            code: 400,
            description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
          });
        callbackAnswers.push({
          callback_query_id: params.callback_query_id,
          ...(typeof params.text === 'string' ? { text: params.text } : {}),
        });
        return ok(res, true);
      }
      default:
        return error(res, { code: 404, description: 'Not Found' });
    }
  };

  function textProblem(params: Record<string, unknown>): string | null {
    const text = typeof params.text === 'string' ? params.text : '';
    if (text.trim() === '') return 'Bad Request: message text is empty';
    if (text.length > MAX_TEXT) return 'Bad Request: message is too long';
    if (params.parse_mode === 'HTML') {
      const problem = htmlProblem(text);
      if (problem !== null) return problem;
    }
    const markup = params.reply_markup as SentMessage['reply_markup'] | undefined;
    for (const row of markup?.inline_keyboard ?? []) {
      for (const button of row) {
        const size = Buffer.byteLength(button.callback_data ?? '', 'utf8');
        if (size < 1 || size > 64) return 'Bad Request: BUTTON_DATA_INVALID';
      }
    }
    return null;
  }

  const listen = async () => {
    server = createServer((req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) error(res, { code: 500, description: 'Internal Server Error' });
      });
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    const s = server;
    await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
    port = (s.address() as AddressInfo).port;
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (pending !== null) {
      clearTimeout(pending.timer);
      pending = null;
    }
    if (s === null) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();

  let nextCallback = 1;
  const push = (update: Omit<DoubleUpdate, 'update_id'>): number => {
    const id = nextUpdateId++;
    updates.push({ update_id: id, ...update });
    answerPoll();
    return id;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    username,
    calls,
    messages,
    callbackAnswers,
    get webhook() {
      return webhook;
    },
    get conflicts() {
      return conflicts;
    },
    get unauthorized() {
      return unauthorized;
    },
    /** Updates not yet confirmed by an offset. */
    get queued() {
      return updates.length;
    },
    /** An update as Telegram would deliver it; returns its update_id. */
    push,
    /** A person writes in a private chat (chat id = their user id). */
    say(chatId: number, text: string, from: { username?: string; type?: string } = {}) {
      return push({
        message: {
          message_id: 1000 + nextUpdateId,
          date: Math.floor(Date.now() / 1000),
          chat: {
            id: chatId,
            type: from.type ?? 'private',
            ...(from.username ? { username: from.username } : {}),
          },
          from: {
            id: chatId,
            is_bot: false,
            first_name: 'T',
            ...(from.username ? { username: from.username } : {}),
          },
          text,
        },
      });
    },
    /** A press of a button under the bot's message; returns the callback query's id. */
    press(chatId: number, message: SentMessage, data: string) {
      const id = `cb${nextCallback++}`;
      push({
        callback_query: {
          id,
          from: { id: chatId, is_bot: false, first_name: 'T' },
          message: {
            message_id: message.message_id,
            date: Math.floor(message.at / 1000),
            chat: { id: chatId, type: 'private' },
            text: message.text,
          },
          chat_instance: 'ci',
          data,
        },
      });
      return id;
    },
    /** A post in a channel the bot is in. */
    post(chatId: number, text: string, title = 'Desk') {
      return push({
        channel_post: {
          message_id: nextUpdateId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: 'channel', title },
          text,
        },
      });
    },
    /** The next calls of `method` ('*': any) are refused like this, in turn. */
    refuse(method: string, ...list: Refusal[]) {
      refusals.set(method, [...(refusals.get(method) ?? []), ...list]);
    },
    block(chatId: number) {
      blocked.add(chatId);
    },
    sentTo(chatId: number) {
      return messages.filter((m) => m.chat_id === chatId);
    },
    callsOf(method: string) {
      return calls.filter((c) => c.method === method);
    },
    /** Stops listening: every call is refused a connection until `up`. */
    down: stop,
    /** Listens again, on the same port. */
    up: listen,
    close: stop,
  };
}

export type TelegramBotDouble = Awaited<ReturnType<typeof startTelegramBotDouble>>;
