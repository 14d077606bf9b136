import { z } from 'zod';

/** What the server answered to one request. */
export interface Answer {
  status: number;
  body: unknown;
  /** The Retry-After header, when the answer had one. */
  retryAfter?: string | null;
}

type Method = 'GET' | 'POST' | 'PUT';

/**
 * One user's client of a real server over loopback: JSON or form bodies and a bearer token. A request
 * that gets no answer (connection refused, reset, or cut by a kill) resolves to `null`, never throws.
 */
export class Api {
  token: string | null = null;

  constructor(public base: string) {}

  async send(
    method: Method,
    url: string,
    body?: Record<string, unknown>,
    opts: { form?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Answer | null> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined && opts.form === true) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    try {
      const res = await fetch(`${this.base}/api${url}`, { method, headers, body: payload });
      const text = await res.text();
      return { status: res.status, body: parse(text), retryAfter: res.headers.get('retry-after') };
    } catch {
      return null;
    }
  }

  /** A call that must succeed (2xx), its body read through `schema`; throws with the answer otherwise. */
  async must<T>(
    schema: z.ZodType<T>,
    method: Method,
    url: string,
    body?: Record<string, unknown>,
    form = false,
  ): Promise<T> {
    const answer = await this.send(method, url, body, { form });
    if (answer === null || answer.status >= 300) {
      throw new Error(`${method} ${url}: ${describe(answer)}`);
    }
    return schema.parse(answer.body);
  }
}

const Token = z.object({ access_token: z.string() });

/** Signs a new user up and logs in over HTTP, as the browser does; answers their client. */
export async function signUp(base: string, username: string): Promise<Api> {
  const api = new Api(base);
  const password = 'reliable Pa55word!';
  await api.must(z.unknown(), 'POST', '/auth/signup', {
    email: `${username}@example.com`,
    username,
    password,
  });
  api.token = (await api.must(Token, 'POST', '/auth/token', { username, password }, true)).access_token;
  return api;
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An answer in one line, for failure messages. */
export function describe(answer: Answer | null): string {
  return answer === null ? 'no answer' : `${answer.status} ${JSON.stringify(answer.body)}`;
}
