import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';

let nextIp = 1;

/** A browser as the auth routes see it: its own address, a cookie jar and an access token. */
export class AuthClient {
  readonly ip = `10.1.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;
  readonly cookies = new Map<string, string>();
  token: string | null = null;

  constructor(private readonly app: FastifyInstance) {}

  async send(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: Record<string, unknown>,
    opts: { form?: boolean; bearer?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0' };
    const bearer = opts.bearer === undefined ? this.token : opts.bearer;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const request: InjectOptions = { method, url: `/api${url}`, headers, remoteAddress: this.ip };
    if (body !== undefined && opts.form === true) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      request.payload = new URLSearchParams(
        Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ).toString();
    } else if (body !== undefined) {
      request.payload = body;
    }
    const res = await this.app.inject(request);
    for (const cookie of res.cookies) {
      const gone =
        cookie.value === '' || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now());
      if (gone) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return res;
  }

  async signup(username: string, password = 'correct horse', email = `${username}@example.com`) {
    return this.send('POST', '/auth/signup', { email, username, password });
  }

  /** Logs in by form, keeping the access token when one comes back. */
  async login(username: string, password = 'correct horse', rememberMe = false) {
    const res = await this.send(
      'POST',
      '/auth/token',
      {
        username,
        password,
        remember_me: rememberMe ? 'true' : 'false',
        device_info: { browser: 'Chrome', os: 'Linux' },
      },
      { form: true },
    );
    const body = res.json<{ access_token?: string }>();
    if (res.statusCode === 200 && body.access_token !== undefined) this.token = body.access_token;
    return res;
  }

  async refresh() {
    const res = await this.send('POST', '/auth/refresh');
    if (res.statusCode === 200) this.token = res.json<{ access_token: string }>().access_token;
    return res;
  }
}

/** The TOTP code for `secret` at `at` (ms), as an authenticator app would show it. */
export function totpCode(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), period: 30, digits: 6 }).generate({ timestamp: at });
}

/** Turns 2FA on for a logged-in client; answers the secret and the recovery codes. */
export async function enableTwoFactor(client: AuthClient) {
  const setup = await client.send('POST', '/auth/2fa/setup');
  const { secret } = setup.json<{ secret: string }>();
  const verify = await client.send('POST', '/auth/2fa/verify', { code: totpCode(secret) });
  if (verify.statusCode !== 200) throw new Error(`2fa verify failed: ${verify.body}`);
  return { secret, recoveryCodes: verify.json<{ recovery_codes: string[] }>().recovery_codes };
}

/** The text of a quoted-printable mail body (soft line breaks joined, =XX decoded). */
export function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** A new password account, signed in (which confirms the sign-in for five minutes). */
export async function signedInClient(
  app: FastifyInstance,
  name: string,
  password: string,
): Promise<AuthClient> {
  const c = new AuthClient(app);
  const signup = await c.signup(name, password);
  if (signup.statusCode !== 201) throw new Error(`sign-up of ${name}: ${signup.statusCode} ${signup.body}`);
  const login = await c.login(name, password);
  if (login.statusCode !== 200) throw new Error(`login of ${name}: ${login.statusCode} ${login.body}`);
  return c;
}

/** The id of the account a client is signed in to. */
export const userIdOf = async (c: AuthClient): Promise<string> =>
  (await c.send('GET', '/users/me')).json<{ id: string }>().id;
