import { describe, expect, it } from 'vitest';
import { BTC_LONG, ETH_SHORT } from '../../services/trading/testing/fixtures';
import { createTestConsole } from '../testing/scripted';

const RECEIPT = {
  stop_loss: { price: 94_227.49, on: 'exchange', state: 'resting' },
  take_profit: { price: 101_919.53, on: 'exchange', state: 'resting' },
  trailing: null,
  exit_at: null,
  unprotected_ms: null,
  note: null,
};

function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const bodyOf = (i: number) => JSON.parse(s.server.requests[i]?.body ?? 'null') as unknown;
  return { ...s, bodyOf };
}

describe('protect and be', () => {
  it('protect sets the whole protection with PUT and prints each leg as the server answered it', async () => {
    // The message spells the legs too (the server's words); the legs are printed once, as lines.
    const s = session();
    s.server.on('PUT /positions/BTCUSDT/protection', () => ({
      status: 200,
      body: { message: 'Protection set on BTC/USDT.', protection: RECEIPT },
    }));
    expect(await s.type('protect btc sl 2% tp 6%')).toEqual([
      'success: Stop loss 94,227.5: resting on the paper exchange.',
      'success: Take profit 101,919.5: resting on the paper exchange.',
    ]);
    expect(s.bodyOf(0)).toEqual({ stop_loss_pct: 2, take_profit_pct: 6 });
    expect(s.stores.positions.refreshRequests.value.count).toBe(1);
    await s.type('protect btc sl 94000 trail 0.5% exit 1d');
    expect(s.bodyOf(1)).toEqual({ stop_loss_price: 94_000, trailing_pct: 0.5, exit_after_min: 1440 });
  });

  it("shows the server's refusal as written: a 422's message, a missing position", async () => {
    const s = session();
    s.server.on('PUT /positions/BTCUSDT/protection', () => ({
      status: 422,
      body: {
        detail: [
          {
            loc: ['body', 'stop_loss_price'],
            msg: "A long's stop loss must be below the price (97000).",
            type: 'value_error',
          },
        ],
      },
    }));
    expect(await s.type('protect btc sl 99000')).toEqual([
      "error: A long's stop loss must be below the price (97000).",
    ]);
    s.server.on('PUT /positions/ETHUSDT/protection', () => ({
      status: 404,
      body: { detail: 'No open ETH/USDT position.' },
    }));
    expect(await s.type('protect eth tp 5%')).toEqual(['error: No open ETH/USDT position.']);
  });

  it('protect off removes it with DELETE, and names a leg the venue kept', async () => {
    const s = session();
    s.server.on('DELETE /positions/BTCUSDT/protection', () => ({
      status: 200,
      body: {
        message: 'Protection removed from BTC/USDT.',
        protection: { stop_loss: null, take_profit: null, trailing: null, exit_at: null },
      },
    }));
    expect(await s.type('protect btc off')).toEqual(['success: Protection removed from BTC/USDT.']);
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /positions/BTCUSDT/protection',
    ]);
    s.server.on('DELETE /positions/BTCUSDT/protection', () => ({
      status: 200,
      body: {
        message: 'The take profit could not be cancelled yet.',
        protection: {
          stop_loss: null,
          take_profit: { price: 101_919.53, on: 'exchange', state: 'resting' },
          trailing: null,
          exit_at: null,
        },
      },
    }));
    expect(await s.type('protect btc OFF')).toEqual([
      'success: The take profit could not be cancelled yet.',
      'success: Take profit 101,919.5: resting on the paper exchange.',
    ]);
  });

  it('be moves the stop to break-even with POST and prints the legs', async () => {
    const s = session();
    s.server.on('POST /positions/ETHUSDT/protection/break-even', () => ({
      status: 200,
      body: {
        message: 'Stop moved to break-even (3,400.00).',
        protection: { ...RECEIPT, stop_loss: { price: 3400, on: 'exchange', state: 'placing' } },
      },
    }));
    expect(await s.type('be eth')).toEqual([
      'info: Stop loss 3,400.00: placing on the paper exchange.',
      'success: Take profit 101,919.53: resting on the paper exchange.',
    ]);
    expect(s.server.requests[0]?.body ?? null).toBeNull();
    s.server.on('POST /positions/BTCUSDT/protection/break-even', () => ({
      status: 409,
      body: { detail: 'BTC/USDT is not in profit: its break-even stop would fire at once.' },
    }));
    expect(await s.type('breakeven btc')).toEqual([
      'error: BTC/USDT is not in profit: its break-even stop would fire at once.',
    ]);
  });

  it.each([
    [
      'protect btc',
      'Say what protects the position: sl, tp, trail or exit (or off to remove its protection).',
    ],
    ['protect btc off sl 2%', "'off' stands alone: protect btc off."],
    ['protect btc stop 2%', "Invalid protection: 'stop'. Use sl, tp, trail or exit (or off)."],
    ['protect btc sl', "Missing value after 'sl'. Use a percent (sl 2%) or a price (sl 98000)."],
    ['protect btc sl 2% sl 3%', "'sl' is given twice."],
    ['protect btc trail 20%', 'Trailing stop must be between 0.1% and 10%.'],
    [
      'protect btc exit 2w',
      "Invalid exit time: '2w'. Use minutes, hours or days (exit 30m, exit 2h, exit 1d).",
    ],
  ])('%s says "%s" and sends nothing', async (line, message) => {
    const s = session();
    expect(await s.type(line)).toEqual([`error: ${message}`]);
    expect(s.server.requests).toEqual([]);
  });

  it('refuses an unknown asset with its usage, and asks a guest to log in after reading the line', async () => {
    const s = session();
    expect(await s.type('protect xyz sl 2%')).toEqual([
      'error: Unknown symbol: XYZ. Type a ticker such as BTC or ETH.',
      'muted: Usage: protect <asset> [words...]',
    ]);
    const guest = session(null);
    expect(await guest.type('protect btc sl')).toEqual([
      "error: Missing value after 'sl'. Use a percent (sl 2%) or a price (sl 98000).",
    ]);
    expect(await guest.type('protect btc sl 2%')).toEqual(['error: You must be logged in.']);
    expect(await guest.type('be btc')).toEqual(['error: You must be logged in.']);
    expect(guest.stores.ui.authModal.value).toBe('login');
    expect(guest.server.requests).toEqual([]);
  });

  it('help and Tab know the new words', async () => {
    const s = session();
    const listing = (await s.type('help trading')).join('\n');
    expect(listing).toMatch(/info: {3}protect /);
    expect(listing).toMatch(/info: {3}be /);
    expect(await s.type('help be')).toContain('info: Aliases: breakeven');
    expect(await s.type('help protect')).toContain('muted:   protect btc sl 2% tp 6%');
    s.stores.positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    expect(s.complete('protect ')).toEqual(['btc', 'eth']);
    expect(s.complete('be e')).toEqual(['eth']);
    expect(s.complete('protect btc ')).toEqual(['sl', 'tp', 'trail', 'exit', 'off']);
    expect(s.complete('protect btc sl ')).toEqual([]);
    expect(s.complete('protect btc sl 2% ')).toEqual(['tp', 'trail', 'exit']);
    expect(s.complete('btc long 500 ')).toEqual(['sl', 'tp', 'trail', 'exit']);
    expect(s.complete('btc long 500 sl 2% t')).toEqual(['tp', 'trail']);
    expect(s.complete('long 500 e')).toEqual(['exit']);
    expect(s.complete('order long 500 ')).toEqual(['sl', 'tp', 'trail', 'exit']);
    expect(s.complete('order long ')).toEqual(['100', '250', '1k', '5k']);
  });
});
