import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { stepUps, users } from '../../server/db/schema';
import { createAccessTokens } from '../../server/plugins/auth-guard';
import { createSecrets } from '../../server/plugins/secrets';
import { startSignedDouble, type SignedDouble } from '../../tests/fixtures/binance-signed-double';
import type { VenueDouble } from '../../tests/fixtures/venue-double';
import { freePort, startServerProcess, waitForHealth } from '../../tests/helpers/process';

export interface LiveBench {
  double: SignedDouble;
  base: string;
  key: { apiKey: string; secret: string };
  /** The saved key's id: the account name a rule trades on. */
  keyId: string;
  /** One signed-in call to the server: its status and JSON answer. */
  call(
    method: string,
    url: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<{
    status: number;
    json: Record<string, unknown>;
  }>;
  /** Stops the server and the double, and removes the data folder. */
  close(): Promise<void>;
}

/**
 * The server from its sources on PGlite beside the local Binance double, with one user signed in whose
 * chosen account is a saved key on that double: what the live benchmarks measure against. `env` adds
 * to the server's configuration.
 */
export async function startLiveBench(name: string, env: Record<string, string> = {}): Promise<LiveBench> {
  const key = benchKey(name);
  const double = await startSignedDouble();
  double.keys.set(key.apiKey, { ...key, ipRestrict: true });
  const server = await startOnKey(
    name,
    { BINANCE_FAPI_URL: double.url, BINANCE_API_URL: double.url, ...env },
    { exchangeName: 'binance', apiKey: key.apiKey, secretKey: key.secret },
    () => double.close(),
  );
  return { ...server, double, key };
}

/** The same, beside any venue's double ({@link VenueDouble}): what the per-venue benchmarks measure. */
export async function startVenueBench(
  name: string,
  double: VenueDouble,
  env: Record<string, string> = {},
): Promise<Omit<LiveBench, 'double'> & { double: VenueDouble }> {
  const key = benchKey(name);
  const body = double.addKey(double.venue === 'okx' ? { ...key, passphrase: BENCH_PASSPHRASE } : key);
  const server = await startOnKey(name, { ...double.settings, ...env }, body, () => double.close());
  return { ...server, double, key };
}

/** The passphrase of the bench's OKX key. */
export const BENCH_PASSPHRASE = 'Bench-pass-1';

const benchKey = (name: string) => ({
  apiKey: `Bench${name}Key0123456789abcdef`.slice(0, 32),
  secret: `bench-${name}-secret-0123456789`,
});

/** The server beside a double, one user signed in, the key saved and chosen. */
async function startOnKey(
  name: string,
  env: Record<string, string>,
  keyBody: Record<string, unknown>,
  closeDouble: () => Promise<void>,
): Promise<Pick<LiveBench, 'base' | 'keyId' | 'call' | 'close'>> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `sc-bench-${name}-`));
  const secretsKey = randomBytes(32).toString('hex');
  const database = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
  const [user] = await database.db
    .insert(users)
    .values({ email: `${name}-bench@example.com`, username: `${name}bench` })
    .returning({ id: users.id });
  if (!user) throw new Error('no user');
  // Saving a key needs a sign-in confirmed in the last five minutes: the bench's sign-in is, from now.
  const familyId = randomUUID();
  await database.db
    .insert(stepUps)
    .values({ familyId, userId: user.id, confirmedUntil: new Date(Date.now() + 5 * 60_000) });
  await database.close();
  const token = await createAccessTokens(createSecrets(Buffer.from(secretsKey, 'hex')).deriveKey('jwt')).sign(
    {
      userId: user.id,
      role: 'user',
      familyId,
    },
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startServerProcess({
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SECRETS_KEY: secretsKey,
    MARKET_SOURCE: 'sim',
    ...env,
  });
  const close = async () => {
    await server.stop();
    await closeDouble();
    await rm(dataDir, { recursive: true, force: true });
  };
  const call: LiveBench['call'] = async (method, url, body, idempotencyKey) => {
    const res = await fetch(base + url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  let keyId: string;
  try {
    await waitForHealth(base);
    const saved = await call('POST', '/api/exchanges/', keyBody);
    if (saved.status !== 201) throw new Error(`key not saved: ${JSON.stringify(saved.json)}`);
    keyId = String(saved.json.id);
    const chosen = await call('PUT', '/api/account', { account: saved.json.id });
    if (chosen.status !== 200) throw new Error(`account not chosen: ${JSON.stringify(chosen.json)}`);
  } catch (err) {
    await close();
    throw err;
  }
  return { base, keyId, call, close };
}
