import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Signal } from '../../src/contracts/signals';
import { freePort, startServerProcess, waitForHealth, type ServerProcess } from '../helpers/process';
import { runCli } from './cli.support';

/** The webhook's token: the follow test posts its own headlines beside the replay. */
const INGEST_TOKEN = 'cli-test-ingest-token-123';

/** The Node CLI against a real server started here: login, orders, --json, refresh, exit codes, SSE. */
describe('signal-console CLI', () => {
  let server: ServerProcess;
  let base: string;
  let dir: string;
  let sessionFile: string;
  const cli = (args: string[], input = '', file = sessionFile) =>
    runCli(['--server', base, '--session', file, ...args], input);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sc-cli-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = startServerProcess({
      PORT: String(port),
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'warn',
      // The replay set plays once per 352 intervals; after that its items repeat texts seen within 30
      // minutes and are dropped as duplicates. At one a second it stays fresh for the whole file even on
      // a busy machine, where the tests before `feed --follow` can take minutes.
      REPLAY_INTERVAL_MS: '1000',
      MARKET_SIM_TICK_MS: '250',
      NEWS_SOURCES: 'replay,webhook',
      INGEST_TOKEN,
    });
    await waitForHealth(base);
    sessionFile = path.join(dir, 'session.json');
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('signs up and logs in with the password on stdin, keeping the session in a 0600 file', async () => {
    const signup = await cli(['signup', 'cli@example.com', 'clia'], 'secret pass 1\nsecret pass 1\n');
    expect(signup).toMatchObject({ code: 0 });
    expect(signup.stdout).toContain('Registration successful');
    const login = await cli(['login', 'clia'], 'secret pass 1\n');
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('Logged in as clia.\n');
    expect(login.stdout + login.stderr).not.toContain('secret pass 1');
    expect((await stat(sessionFile)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(sessionFile, 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ server: base, accessToken: expect.any(String) });
    expect(saved.cookies).toHaveProperty('sc_refresh');
  });

  it('places btc long 5k and lists it with positions --json', async () => {
    const order = await cli(['btc', 'long', '5k']);
    expect(order.code).toBe(0);
    expect(order.stdout).toMatch(
      /^Success! Order ID: \S+\nFilled LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+, fee [\d.]+ USDT\./,
    );
    const listed = await cli(['positions', '--json']);
    expect(listed.code).toBe(0);
    const positions = JSON.parse(listed.stdout) as { symbol: string; side: string }[];
    expect(positions).toEqual([expect.objectContaining({ symbol: 'BTC/USDT', side: 'long' })]);
    const table = await cli(['positions']);
    expect(table.stdout.split('\n')[0]).toMatch(/^SYMBOL\s+SIDE\s+SIZE/);
  });

  it.each([200, 150])(
    'btc long %d --json answers the real quantity and notional, and the text says the same',
    async (amount) => {
      const json = await cli(['btc', 'long', String(amount), '--json']);
      expect(json.code).toBe(0);
      const fill = JSON.parse(json.stdout) as {
        quantity: number;
        price: number;
        notional: number;
        requested: number;
        note: string | null;
      };
      expect(fill.requested).toBe(amount);
      expect(fill.notional).toBeCloseTo(fill.quantity * fill.price, 6);
      // The nearest 0.001 BTC step: within half a step of the amount asked, never floored a step below.
      expect(Math.abs(fill.notional - amount)).toBeLessThanOrEqual((0.001 * fill.price) / 2 + 1e-9);
      expect(Number.isInteger(Number((fill.quantity * 1000).toFixed(6)))).toBe(true);
      expect(fill.note).toMatch(
        new RegExp(`^Not exactly ${amount} USDT: BTC trades in steps of 0\\.001 BTC`),
      );

      const text = await cli(['btc', 'long', String(amount)]);
      const [, line] = text.stdout.split('\n');
      expect(line).toMatch(
        new RegExp(
          `^Filled LONG 0\\.00\\d BTC ≈ [\\d,.]+ USDT of BTC/USDT at [\\d,.]+, fee [\\d.]+ USDT\\. ` +
            `Your BTC long is now 0\\.0\\d+ BTC\\. Not exactly ${amount} USDT`,
        ),
      );
    },
  );

  it('says a short against the long reduces it, with the realised PnL, in the text and --json', async () => {
    const json = await cli(['btc', 'short', '100', '--json']);
    expect(json.code).toBe(0);
    const fill = JSON.parse(json.stdout) as { position: { effect: string; before: { side: string } } };
    expect(fill.position).toMatchObject({ effect: 'reduce', before: { side: 'long' } });
    const text = await cli(['btc', 'short', '100']);
    expect(text.stdout.split('\n')[1]).toMatch(
      /^Reduced your BTC long from 0\.0\d+ to 0\.0\d+ BTC: SHORT 0\.001 BTC ≈ [\d,.]+ USDT at [\d,.]+, realised [+-]?\d+\.\d\d USDT, fee [\d.]+ USDT\./,
    );
  });

  it('refuses btc long 10 naming the symbol and the minimum, with exit code 1', async () => {
    const refused = await cli(['btc', 'long', '10']);
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toMatch(/Error: The minimum order for BTC\/USDT is 100 USDT\./);
    expect(refused.stderr + refused.stdout).not.toMatch(/reduce/i);
  });

  it('refreshes an expired access token with the saved cookie, like the browser', async () => {
    const saved = JSON.parse(await readFile(sessionFile, 'utf8')) as { accessToken: string };
    await writeFile(sessionFile, JSON.stringify({ ...saved, accessToken: 'expired-token' }), { mode: 0o600 });
    const balance = await cli(['balance', '--json']);
    expect(balance.code).toBe(0);
    expect(JSON.parse(balance.stdout)).toMatchObject({ exchange: 'paper' });
    const after = JSON.parse(await readFile(sessionFile, 'utf8')) as { accessToken: string };
    expect(after.accessToken).not.toBe('expired-token');
  });

  it('asks before an order above the fat-finger cap; --yes answers it', async () => {
    const declined = await cli(['eth', 'long', '100k'], 'n\n');
    expect(declined).toMatchObject({ code: 0, stdout: 'Cancelled.\n' });
    expect(declined.stderr).toContain('above your fat-finger cap of 25k USDT');
    const accepted = await cli(['--yes', 'eth', 'long', '30k']);
    expect(accepted.stdout).toContain('Success! Order ID:');
  });

  it('exits 2 on bad usage, 1 when refused, 0 when fine', async () => {
    // Independent runs, side by side: each is a Node process that compiles the CLI on start.
    const [unknown, badAmount, badLeverage, guest, help, down, bare] = await Promise.all([
      cli(['nope']),
      cli(['long', 'abc']),
      cli(['leverage', 'btc', '500']),
      cli(['positions'], '', path.join(dir, 'guest.json')),
      cli(['help', 'long']),
      runCli(['--server', 'http://127.0.0.1:9', '--session', path.join(dir, 'x.json'), 'price']),
      runCli([]),
    ]);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'Unknown command: \'nope\'. Type "help" to list commands.\n',
    });
    expect(badAmount.code).toBe(2);
    expect(badLeverage.code).toBe(2);
    expect(guest).toMatchObject({ code: 1, stderr: 'You must be logged in.\n' });
    expect(help.stdout).toContain('Usage: long [amount...]');
    expect(down.code).toBe(1);
    expect(bare.code).toBe(2);
  }, 60_000);

  it('logs out and removes the session file', async () => {
    expect((await cli(['logout'])).stdout).toBe('Logged out.\n');
    await expect(stat(sessionFile)).rejects.toThrow();
  });

  it('feed --follow streams signals from the server as JSON lines', async () => {
    const following = cli(['feed', '--follow', '--json', '-n', '2']);
    // The replay's repeats within 30 min are no new signal, and how much of its loop is left depends on
    // how long the tests before took: fresh headlines go to the webhook until the follower has its two.
    let done = false;
    void following.finally(() => (done = true));
    for (let n = 0; !done; n += 1) {
      await fetch(`${base}/api/signals/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_name: 'Wire', content: `Exchange ${n} lists token number ${n}` }),
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const follow = await following;
    expect(follow.code).toBe(0);
    const lines = follow.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Signal.safeParse(JSON.parse(line)).success).toBe(true);
  }, 60_000);
});

describe('feed --follow against a small SSE server', () => {
  let sse: Server;
  let url: string;
  const seenLastIds: (string | undefined)[] = [];

  beforeAll(async () => {
    const signal = (id: string, content: string) => ({
      ...JSON.parse(JSON.stringify(SAMPLE)),
      id,
      signal_id: id,
      content,
    });
    // Sends one signal per connection and hangs up, so the CLI must reconnect with Last-Event-ID.
    sse = createServer((req, res) => {
      const last = req.headers['last-event-id'];
      seenLastIds.push(typeof last === 'string' ? last : undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`: hello\n\nevent: status\ndata: {"connected":true}\n\n`);
      const next = last === undefined ? '1' : String(Number(last) + 1);
      res.end(`id: ${next}\nevent: signal\ndata: ${JSON.stringify(signal(next, `story ${next}`))}\n\n`);
    });
    await new Promise<void>((resolve) => sse.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(sse.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => sse.close(() => resolve())));

  it('prints each signal as a line and resumes after the stream ends', async () => {
    const run = await runCli(['--server', url, 'feed', '--follow', '--limit', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      '12:00:00  Replay   80 positive  $BTC  story 1',
      expect.stringMatching(/story 2$/),
    ]);
    expect(seenLastIds).toEqual([undefined, '1']);
  });
});

const SAMPLE: Signal = {
  id: '1',
  signal_id: '1',
  asset: 'BTC',
  assets: ['BTC'],
  content: 'story',
  metadata: { url: null, icon: null, source_name: 'Replay', username: null, media_urls: [] },
  quote_data: null,
  analysis: {
    status: 'completed',
    impact_score: 80,
    nlp: { sentiment: 'positive', reasoning: 'ETF inflows' },
    engine: 'local',
  },
  event_type: null,
  initial_prices: { BTC: 100_000 },
  source: 'replay',
  published_at: null,
  received_at: '2025-01-06T12:00:00.000Z',
  also_reported_by: [],
};
