import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OFFLINE_ENV } from '../../tests/helpers/process';

/** The bundle `npm start` runs, as a process of its own (news-to-order's `outside` mode). */
export interface BundleServer {
  base: string;
  /** Stops the process and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * dist/server/main.mjs (after `npm run build`) on a free loopback port with an empty data folder and the
 * offline stand-ins, `env` on top; not yet answering when this returns.
 */
export async function startBundle(env: Record<string, string>): Promise<BundleServer> {
  const main = path.join(import.meta.dirname, '../../dist/server/main.mjs');
  if (!existsSync(main)) throw new Error('run `npm run build` first');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-bench-n2o-out-'));
  const port = await freePort();
  const server = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      // Offline stand-ins only (the simulated market above all): a bench never reaches past loopback.
      ...OFFLINE_ENV,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A request from a loopback address of its own (sign-ups are limited per address, as from outside). */
export function request(
  base: string,
  method: string,
  url: string,
  opts: { body?: Record<string, unknown>; token?: string; form?: boolean; from?: string } = {},
): Promise<{ status: number; body: string }> {
  const data =
    opts.body === undefined
      ? undefined
      : opts.form === true
        ? new URLSearchParams(opts.body as Record<string, string>).toString()
        : JSON.stringify(opts.body);
  const headers: Record<string, string> = {};
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (data !== undefined) {
    headers['content-type'] = opts.form === true ? 'application/x-www-form-urlencoded' : 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${url}`,
      { method, headers, ...(opts.from === undefined ? {} : { localAddress: opts.from }) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/**
 * `count` traders as a client makes them: each signs up and logs in through the API (from a loopback
 * address of its own: sign-ups are limited per address), saves the rule every headline matches and
 * lifts its risk limits; their bearer tokens, in order.
 */
export async function signUpTraders(base: string, count: number): Promise<string[]> {
  const userTokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = `127.0.0.${2 + i}`;
    const user = { username: `outside${i}`, password: 'outside bench pass 1' };
    const signup = await request(base, 'POST', '/api/auth/signup', {
      body: { ...user, email: `outside${i}@example.com` },
      from,
    });
    if (signup.status !== 201) throw new Error(`sign-up ${signup.status} ${signup.body}`);
    const login = await request(base, 'POST', '/api/auth/token', {
      body: { ...user, remember_me: 'false' },
      form: true,
      from,
    });
    const token = (JSON.parse(login.body) as { access_token?: string }).access_token;
    if (token === undefined) throw new Error(`login ${login.status} ${login.body}`);
    const rule = await request(base, 'POST', '/api/rules/', {
      token,
      body: {
        ruleName: 'any positive',
        conditions: { sentiment: 'positive', min_impact: 0, max_impact: 100 },
        action: { type: 'trade', side: 'long', amount_usd: 200 },
      },
    });
    if (rule.status !== 201) throw new Error(`rule ${rule.status} ${rule.body}`);
    // As in process: limits that let every match trade (a new user may hold five positions).
    const risk = await request(base, 'PUT', '/api/rules/risk', {
      token,
      body: { max_positions: 200, daily_budget_usd: 100_000, cooldown_minutes: 0 },
    });
    if (risk.status !== 200) throw new Error(`risk ${risk.status} ${risk.body}`);
    userTokens.push(token);
  }
  return userTokens;
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
