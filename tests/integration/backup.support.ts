import path from 'node:path';
import { expect } from 'vitest';
import { ROOT, runProcess, type ProcessRun } from '../helpers/process';
import { totpCode } from './auth.support';

type Json = Record<string, unknown>;

/** A signed-in (or not) caller of a real server over HTTP on loopback. */
export function apiClient(base: string) {
  let token: string | null = null;
  return {
    setToken: (t: string | null) => (token = t),
    async send(method: string, url: string, body?: Json, form = false) {
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) {
        headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
        if (url === '/orders') headers['idempotency-key'] = `backup-${Date.now()}-${Math.random()}`;
      }
      const res = await fetch(`${base}/api${url}`, {
        method,
        headers,
        ...(body === undefined
          ? {}
          : {
              body: form
                ? new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString()
                : JSON.stringify(body),
            }),
      });
      const text = await res.text();
      const json: unknown = text === '' ? {} : JSON.parse(text);
      return { status: res.status, json };
    },
  };
}
type Client = ReturnType<typeof apiClient>;

async function ok(client: Client, method: string, url: string, body?: Json, form = false): Promise<unknown> {
  const res = await client.send(method, url, body, form);
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
  return res.json;
}

/** What a seeded server holds, as read back through its API. */
export interface Seeded {
  totpSecret: string;
  positions: unknown[];
  balance: unknown;
  rules: string[];
  watchlist: string[];
}

const PASSWORD = 'backup Pa55word!';
const RULE = {
  ruleName: 'ETH good news',
  conditions: { asset: 'ETH', sentiment: 'positive', min_impact: 60 },
  action: { type: 'trade', side: 'long', amount_usd: 300 },
  isActive: true,
};

/** Two users; the first with 2FA on (a sealed TOTP secret), a paper order, a rule and a watchlist entry. */
export async function seed(base: string): Promise<Seeded> {
  const bella = apiClient(base);
  await ok(bella, 'POST', '/auth/signup', {
    email: 'bella@example.com',
    username: 'bella',
    password: PASSWORD,
  });
  const login = (await ok(
    bella,
    'POST',
    '/auth/token',
    { username: 'bella', password: PASSWORD },
    true,
  )) as Json;
  bella.setToken(String(login.access_token));
  const setup = (await ok(bella, 'POST', '/auth/2fa/setup')) as Json;
  const totpSecret = String(setup.secret);
  await ok(bella, 'POST', '/auth/2fa/verify', { code: totpCode(totpSecret) });
  await ok(bella, 'POST', '/orders', { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: '250' });
  await ok(bella, 'POST', '/rules/', RULE);
  await ok(bella, 'POST', '/watchlist/', { ticker: 'sol' });

  const cody = apiClient(base);
  await ok(cody, 'POST', '/auth/signup', { email: 'cody@example.com', username: 'cody', password: PASSWORD });
  const codyLogin = (await ok(
    cody,
    'POST',
    '/auth/token',
    { username: 'cody', password: PASSWORD },
    true,
  )) as Json;
  cody.setToken(String(codyLogin.access_token));
  await ok(cody, 'POST', '/watchlist/', { ticker: 'doge' });
  return { totpSecret, ...(await readBack(bella)) };
}

async function readBack(bella: Client): Promise<Omit<Seeded, 'totpSecret'>> {
  const positions = (await ok(bella, 'GET', '/positions')) as Json[];
  const balance = (await ok(bella, 'GET', '/account/balance')) as Json;
  const rules = (await ok(bella, 'GET', '/rules/')) as Json[];
  const watchlist = (await ok(bella, 'GET', '/watchlist/')) as Json[];
  return {
    // The mark price moves with the market; what the order left behind does not.
    positions: positions.map(({ symbol, side, size, entryPrice, leverage }) => ({
      symbol,
      side,
      size,
      entryPrice,
      leverage,
    })),
    balance: balance.walletBalance,
    rules: rules.map((r) => String(r.ruleName)),
    watchlist: watchlist.map((w) => String(w.ticker)),
  };
}

/**
 * Signs both users in on the restored server (the first through 2FA, which needs the restored secrets
 * key to open the sealed TOTP secret) and reads back what `seed` left.
 */
export async function readRestored(base: string, seeded: Seeded): Promise<Omit<Seeded, 'totpSecret'>> {
  const bella = apiClient(base);
  const first = (await ok(
    bella,
    'POST',
    '/auth/token',
    { username: 'bella', password: PASSWORD },
    true,
  )) as Json;
  expect(first.two_factor_required).toBe(true);
  // The step after the one `seed` used: a TOTP code is accepted once, and the last step was restored too.
  const code = totpCode(seeded.totpSecret, Date.now() + 30_000);
  const second = (await ok(bella, 'POST', '/auth/2fa/login', {
    user_id: String(first.user_id),
    code,
  })) as Json;
  bella.setToken(String(second.access_token));

  const cody = apiClient(base);
  const codyLogin = (await ok(
    cody,
    'POST',
    '/auth/token',
    { username: 'cody', password: PASSWORD },
    true,
  )) as Json;
  cody.setToken(String(codyLogin.access_token));
  const codyList = (await ok(cody, 'GET', '/watchlist/')) as Json[];
  expect(codyList.map((w) => w.ticker)).toEqual(['DOGE']);
  return readBack(bella);
}

export type ToolRun = ProcessRun;

/** Runs `npm run <script> -- <args>` in the project with only the given environment (plus PATH, HOME). */
export function npmRun(
  script: 'backup' | 'restore',
  args: string[],
  env: Record<string, string>,
): Promise<ToolRun> {
  return run('npm', ['run', '--silent', script, '--', ...args], env);
}

/** Runs the tool behind `npm run <script>` with node itself, so that PATH may hold nothing at all. */
export function nodeRun(
  script: 'backup' | 'restore',
  args: string[],
  env: Record<string, string>,
): Promise<ToolRun> {
  const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  return run(process.execPath, [tsx, `server/db/tools/${script}.ts`, ...args], env);
}

function run(command: string, args: string[], env: Record<string, string>): Promise<ToolRun> {
  return runProcess(command, args, { env });
}

/** The path `npm run backup` printed. */
export function writtenPath(run: ToolRun): string {
  const file = /Backup written to (.+) \(\d/.exec(run.stdout)?.[1];
  expect(file, run.stdout + run.stderr).toBeDefined();
  return path.resolve(file ?? '');
}
