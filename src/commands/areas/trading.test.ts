import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../services/testing/fakeServer';
import { BTC_LONG, ETH_SHORT } from '../../services/trading/testing/fixtures';
import { recordedFill, recordedRefusal, recordedReply } from '../../services/trading/testing/serverAnswers';
import type { Trade } from '../../contracts/trading';
import { createTestConsole } from '../testing/scripted';

/** What the server answered to `btc long 200` (0.002 BTC ≈ 201.37 USDT: the nearest step). */
const FILL = recordedFill('btc long 200');

/** A scripted session, logged in unless `token` is null, whose y/N questions are answered in order. */
function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  s.server.on('POST /orders', () => ({ status: 200, body: FILL }));
  const orderBody = (r: RecordedRequest | undefined) =>
    JSON.parse(r?.body ?? '{}') as Record<string, unknown>;
  return { ...s, orderBody };
}

describe('order commands', () => {
  it.each([
    ['long 100', { symbol: 'BTC/USDT', side: 'long', amount: 100 }],
    ['short 2.5k', { symbol: 'BTC/USDT', side: 'short', amount: 2500 }],
    ['buy 250', { symbol: 'BTC/USDT', side: 'long', amount: 250 }],
    ['sell 1K', { symbol: 'BTC/USDT', side: 'short', amount: 1000 }],
    ['btc long 5k', { symbol: 'BTC/USDT', side: 'long', amount: 5000 }],
    ['ETH SHORT 250', { symbol: 'ETH/USDT', side: 'short', amount: 250 }],
    ['sol buy .5k', { symbol: 'SOL/USDT', side: 'long', amount: 500 }],
    ['order doge long 100', { symbol: 'DOGE/USDT', side: 'long', amount: 100 }],
  ])('%s places a market order', async (line, order) => {
    const s = session();
    await s.type(line);
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /orders']);
    // At or under the fat-finger cap (25k), the order is sized within it.
    expect(s.orderBody(s.server.requests[0])).toEqual({ ...order, type: 'market', maxNotional: 25_000 });
    expect(s.server.requests[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('prints what really filled (quantity, notional, why not the amount typed), and asks the positions to reload', async () => {
    const s = session();
    expect(await s.type('btc long 200')).toEqual([
      `success: Success! Order ID: ${FILL.id}`,
      'info: Filled LONG 0.002 BTC ≈ 201.37 USDT of BTC/USDT at 100,683.1, fee 0.10 USDT. ' +
        'Not exactly 200 USDT: BTC trades in steps of 0.001 BTC ≈ 100.68 USDT (100.68 or 201.37), ' +
        'so the order is the nearest, 0.002 BTC ≈ 201.37 USDT.',
      'muted: Paper exchange: no real funds.',
    ]);
    expect(s.stores.positions.refreshRequests.value.count).toBe(1);
  });

  it('says when an opposite order reduced, flipped or closed the position, with the realised PnL', async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedReply('eth long 100'));
    const reduced = await s.type('eth long 100');
    expect(reduced[1]).toMatch(
      /^info: Reduced your ETH short from 0\.079 to 0\.047 ETH: LONG 0\.032 ETH ≈ 100\.97 USDT at 3,155\.20, realised -0\.04 USDT, fee 0\.05 USDT\. /,
    );
    const fill = recordedFill('eth long 100');
    s.server.on('POST /orders', () => ({
      status: 200,
      body: {
        ...fill,
        position: {
          effect: 'flip',
          before: { side: 'short', size: 0.047 },
          after: { side: 'long', size: 0.01 },
        },
      },
    }));
    expect((await s.type('eth long 100'))[1]).toMatch(
      /^info: Flipped your ETH short of 0\.047 ETH to a long of 0\.01 ETH: LONG 0\.032 ETH .*, realised -0\.04 USDT/,
    );
    s.server.on('POST /orders', () => ({
      status: 200,
      body: { ...fill, position: { effect: 'close', before: { side: 'short', size: 0.032 }, after: null } },
    }));
    expect((await s.type('eth long 100'))[1]).toMatch(
      /^info: Closed your ETH short of 0\.032 ETH: LONG 0\.032 ETH .*, realised -0\.04 USDT, fee 0\.05 USDT\./,
    );
    const help = (await s.type('help long')).join(' ');
    expect(help).toContain('against a short it reduces, closes or flips it');
    expect(help).not.toContain('Open or add to');
  });

  it("names the venue the server's answer gives, not the account the terminal believes it is on", async () => {
    const s = session();
    expect(s.stores.account.mode.peek()).toBe('paper');
    const live = {
      ...recordedFill('btc long 200'),
      account: { venue: 'binance', mode: 'live', keyHint: 'Live…cdef' },
    };
    s.server.on('POST /orders', () => ({ status: 200, body: live }));
    const lines = await s.type('btc long 200');
    expect(lines.at(-1)).toBe('muted: Binance LIVE account (key Live…cdef): real funds.');
    expect(lines.join('\n')).not.toContain('Paper exchange');
  });

  it('prints btc long 150 as the 100.68 USDT it fills, and --json data carries the notional', async () => {
    const s = session();
    const fill = recordedFill('btc long 150');
    s.server.on('POST /orders', () => recordedReply('btc long 150'));
    expect((await s.type('btc long 150'))[1]).toMatch(
      /^info: Filled LONG 0\.001 BTC ≈ 100\.68 USDT of BTC\/USDT/,
    );
    expect(fill).toMatchObject({
      quantity: 0.001,
      notional: 100.6831,
      requested: 150,
      adjustment: 'nearest',
    });
  });

  it("shows the server's refusal under the minimum, naming the symbol and the minimum", async () => {
    const s = session();
    s.server.on('POST /orders', () => recordedRefusal('btc long 10'));
    const [line] = await s.type('btc long 10');
    expect(line).toMatch(/^error: Error: The minimum order for BTC\/USDT is 100 USDT\./);
    expect(line).not.toMatch(/reduce/i);
  });

  it('sends the protection typed after the amount, in any order, and prints what the server says of each leg', async () => {
    const s = session();
    s.server.on('POST /orders', () => ({
      status: 200,
      body: {
        ...FILL,
        protection: {
          stop_loss: { price: 98_669.44, on: 'exchange', state: 'resting' },
          take_profit: { price: 105_717.26, on: 'exchange', state: 'placing' },
          trailing: { callback_pct: 1, on: 'exchange', state: 'missing' },
          exit_at: '2026-11-26T14:30:00.000Z',
          unprotected_ms: 184,
          note: null,
        },
      },
    }));
    const lines = await s.type('btc long 200 tp 5% exit 30m sl 2% trail 1%');
    expect(s.orderBody(s.server.requests[0])).toEqual({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: 200,
      maxNotional: 25_000,
      protection: { stop_loss_pct: 2, take_profit_pct: 5, trailing_pct: 1, exit_after_min: 30 },
    });
    expect(lines.slice(2)).toEqual([
      'success: Stop loss 98,669.4: resting on the paper exchange.',
      'info: Take profit 105,717.3: placing on the paper exchange.',
      'info: Trailing stop 1%: re-placing on the paper exchange.',
      'info: Time exit at 2026-11-26 14:30:00 UTC: in the app.',
      'muted: Unprotected for 184 ms.',
      'muted: Paper exchange: no real funds.',
    ]);
    await s.type('long 200 sl 98000');
    expect(s.orderBody(s.server.requests[1]).protection).toEqual({ stop_loss_price: 98_000 });
    await s.type('long 200');
    expect(s.orderBody(s.server.requests[2])).not.toHaveProperty('protection');
  });

  it("names Binance for a key's legs, and prints a refused leg and the server's note as errors", async () => {
    const s = session();
    s.server.on('POST /orders', () => ({
      status: 200,
      body: {
        ...FILL,
        account: { venue: 'binance', mode: 'demo', keyHint: 'Demo…1234' },
        protection: {
          stop_loss: { price: 98_669.44, on: 'exchange', state: 'refused' },
          take_profit: null,
          trailing: null,
          exit_at: null,
          unprotected_ms: 2_350,
          note: 'Binance refused the stop loss (-2021): the position was closed at market.',
        },
      },
    }));
    const lines = await s.type('btc long 200 sl 2%');
    expect(lines.slice(2)).toEqual([
      'error: Stop loss 98,669.4: refused on Binance.',
      'muted: Unprotected for 2350 ms.',
      'error: Binance refused the stop loss (-2021): the position was closed at market.',
      'muted: Binance DEMO account (key Demo…1234): simulated funds.',
    ]);
  });

  it('says so when the answer is silent about the protection asked for, and invents no state', async () => {
    const s = session();
    const lines = await s.type('btc long 200 sl 2%');
    expect(lines[2]).toBe(
      "info: The server's answer does not say whether the protection was placed: check `positions`.",
    );
    expect(lines.join('\n')).not.toMatch(/resting|placing/);
  });

  it('uses the chosen symbol for the two-word form', async () => {
    const s = session();
    expect(await s.type('eth')).toEqual(['success: Symbol set to ETH/USDT.']);
    await s.type('long 100');
    expect(s.orderBody(s.server.requests[0]).symbol).toBe('ETH/USDT');
  });

  it.each([
    ['long', 'Invalid command format.'],
    ['sell', 'Invalid command format.'],
    ['order', 'Invalid command format.'],
    ['long 5 6', 'Invalid command format.'],
    ['btc long 5k now', "Invalid order option: 'now'. Add sl, tp, trail or exit after the amount."],
    ['btc long 5k sl', "Missing value after 'sl'. Use a percent (sl 2%) or a price (sl 98000)."],
    ['long 500 trail 20%', 'Trailing stop must be between 0.1% and 10%.'],
    ['order "btc long" 5k', "Invalid side: 'btc long'."], // found by the fuzz test: quotes keep one word
    ['sell "" 25000', 'Invalid command format.'],
    ['eth up 5k', "Invalid side: 'up'."],
    ['btc 5k', "Invalid side: 'btc'."],
    ['order btc hold 5', "Invalid side: 'hold'."],
    ['long 0', 'Invalid asset or amount.'],
    ['long -5', 'Invalid asset or amount.'],
    ['short 5m', 'Invalid asset or amount.'],
    ['long abc', 'Invalid asset or amount.'],
    ['nope long 5k', 'Invalid asset or amount.'],
    ['btc short 0k', 'Invalid asset or amount.'],
  ])('%s says "%s" and sends nothing', async (line, message) => {
    const s = session();
    expect(await s.type(line)).toEqual([`error: ${message}`]);
    expect(s.server.requests).toEqual([]);
  });

  it('a ticker alone still chooses the symbol, and other lines stay unknown', async () => {
    const s = session();
    expect(await s.type('sol')).toEqual(['success: Symbol set to SOL/USDT.']);
    expect(await s.type('nope')).toEqual(['error: Unknown command: \'nope\'. Type "help" to list commands.']);
    expect(await s.type('nope nope')).toEqual([
      'error: Unknown command: \'nope\'. Type "help" to list commands.',
    ]);
    expect(await s.type('lnog 5k')).toEqual(["error: Unknown command: 'lnog'. Did you mean 'long'?"]);
    expect(s.server.count('POST /orders')).toBe(0);
  });

  it('asks a guest to log in and opens the login modal', async () => {
    const s = session(null);
    // A mistyped order is answered before the login is asked for.
    expect(await s.type('long abc')).toEqual(['error: Invalid asset or amount.']);
    expect(s.stores.ui.authModal.value).toBeNull();
    expect(await s.type('btc long 5k')).toEqual(['error: You must be logged in.']);
    expect(s.stores.ui.authModal.value).toBe('login');
    for (const line of ['positions', 'balance', 'close btc', 'close all', 'leverage btc 5', 'paper reset']) {
      expect(await s.type(line)).toEqual(['error: You must be logged in.']);
    }
    expect(s.server.requests).toEqual([]);
  });

  it('shows the exchange refusal as "Error: …"', async () => {
    const s = session();
    const refusal = recordedRefusal('sol long 150000');
    s.server.on('POST /orders', () => refusal);
    expect(await s.answering('sol short 150k', 'y')).toEqual([`error: Error: ${refusal.body.detail}`]);
    // Above the cap and confirmed: no cap is sent.
    expect(s.orderBody(s.server.requests[0])).not.toHaveProperty('maxNotional');
  });

  it('asks before an order above the fat-finger cap (25k by default, configurable)', async () => {
    const s = session();
    expect(await s.answering('btc long 100000', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.asked).toEqual([
      '100k USDT is above your fat-finger cap of 25k USDT. Place long BTC/USDT for 100k USDT? [y/N] ',
    ]);
    expect(s.server.count('POST /orders')).toBe(0);
    await s.answering('long 25k');
    expect(s.asked).toHaveLength(1); // exactly at the cap: no question
    expect(s.server.count('POST /orders')).toBe(1);
    await s.answering('eth short 30k', 'yes');
    expect(s.orderBody(s.server.requests[1])).toMatchObject({ symbol: 'ETH/USDT', amount: 30_000 });
    expect(await s.type('fatfinger 50k')).toEqual(['success: Orders above 50k USDT will ask first.']);
    await s.answering('btc long 40k');
    expect(s.asked).toHaveLength(2);
    expect(s.server.count('POST /orders')).toBe(3);
  });
});

describe('close, positions, balance, leverage, paper reset', () => {
  it('closes one position by asset', async () => {
    const s = session();
    s.server.on('POST /close_position', () => recordedReply('close eth'));
    // The answer's own fill: size, price, realised PnL and fee, and the venue it names.
    expect(await s.type('close btc')).toEqual([
      'success: Closed SHORT 0.079 ETH ≈ 249.26 USDT of ETH/USDT at 3,155.20, realised -0.10 USDT, fee 0.12 USDT.',
      'muted: Paper exchange: no real funds.',
    ]);
    expect(JSON.parse(s.server.requests[0]?.body ?? '')).toEqual({ symbol: 'BTC/USDT' });
    s.server.on('POST /close_position', () => ({
      status: 404,
      body: { detail: 'No open ETH/USDT position.' },
    }));
    expect(await s.type('close eth')).toEqual([
      'error: Failed to close position: No open ETH/USDT position.',
    ]);
    expect(await s.type('close xyz')).toEqual([
      'error: Unknown symbol: XYZ. Type a ticker such as BTC or ETH.',
      'muted: Usage: close <asset> [share]',
    ]);
  });

  it('close all says when nothing is open, without asking', async () => {
    const s = session();
    s.server.on('GET /positions', () => ({ status: 200, body: [] }));
    expect(await s.answering('close all', 'y')).toEqual(['info: There are no open positions to close.']);
    expect(s.asked).toEqual([]);
    expect(s.server.count('POST /close_all_positions')).toBe(0);
  });

  it('close all asks y/N with the count; N (or Enter) cancels, y closes', async () => {
    const s = session();
    s.server.on('GET /positions', () => ({ status: 200, body: [BTC_LONG, ETH_SHORT] }));
    s.server.on('POST /close_all_positions', () => recordedReply('close all'));
    expect(await s.answering('close all', '')).toEqual(['muted: Cancelled.']);
    expect(await s.answering('close all', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.server.count('POST /close_all_positions')).toBe(0);
    const closed = await s.answering('close all', 'Y');
    expect(closed).toHaveLength(4);
    expect(closed[0]).toMatch(
      /^success: Closed LONG [\d.]+ BTC ≈ .* of BTC\/USDT at .*, realised .* USDT, fee .* USDT\.$/,
    );
    expect(closed[1]).toMatch(/^success: Closed LONG [\d.]+ DOGE ≈ .* of DOGE\/USDT at /);
    expect(closed[2]).toMatch(
      /^muted: Closed 2 positions: realised [+-]?\d+\.\d\d USDT, fee \d+\.\d\d USDT in all\.$/,
    );
    expect(closed[3]).toBe('muted: Paper exchange: no real funds.');
    expect(s.asked[0]).toBe(
      'Are you sure you want to close all 2 open positions? This action cannot be undone. [y/N] ',
    );
    s.server.on('POST /close_all_positions', () => ({ status: 400, body: { detail: 'Exchange busy.' } }));
    expect(await s.answering('close all', 'yes')).toEqual([
      'error: Failed to close all positions: Exchange busy.',
    ]);
  });

  it('positions prints an aligned table, or says there are none', async () => {
    const s = session();
    const protectedLong = {
      ...BTC_LONG,
      protection: {
        stop_loss: { price: 94_227.49, on: 'exchange', state: 'resting' },
        take_profit: { price: 101_000, on: 'exchange', state: 'placing' },
        trailing: null,
        exit_at: '2026-11-26T14:30:00.000Z',
      },
    };
    // ETH's row comes without protection (a server before protection): unprotected.
    const { protection: _none, ...bareShort } = ETH_SHORT;
    s.server.on('GET /positions', () => ({ status: 200, body: [protectedLong, bareShort] }));
    expect(await s.type('positions')).toEqual([
      'muted: SYMBOL    SIDE    SIZE  ENTRY PRICE  MARK PRICE  LIQ. PRICE  MARGIN (USDT)  UNREALIZED PNL  PROTECTION',
      'info: BTC/USDT  LONG   0.052     96,150.5    96,400.3    87,010.1         499.98          +12.99  SL 94,227.5 resting · TP 101,000.0 placing · Exit 2026-11-26 14:30:00 UTC',
      'info: ETH/USDT  SHORT    1.5     3,400.00    3,412.50    4,060.75       1,020.00          -18.75  unprotected',
    ]);
    s.server.on('GET /positions', () => ({ status: 200, body: [] }));
    expect(await s.type('pos')).toEqual(['muted: No open positions.']);
    s.server.on('GET /positions', () => ({ status: 500, body: {} }));
    expect(await s.type('positions')).toEqual(['error: Failed to fetch positions.']);
  });

  it('balance shows the paper account as the server reports it, with one unit and the open positions', async () => {
    const s = session();
    s.server.on('GET /account/balance', () => recordedReply('balance'));
    s.server.on('GET /positions', () => recordedReply('positions'));
    expect(await s.type('balance')).toEqual([
      'info: Wallet balance  9,999.67 USDT',
      'info: Available       9,934.55 USDT',
      'info: Unrealized PnL  -0.13 USDT on 3 open positions',
      'info: Equity          9,999.54 USDT',
      'muted: Paper exchange: no real funds.',
    ]);
    s.server.on('GET /positions', () => ({ status: 200, body: [BTC_LONG] }));
    expect((await s.type('balance'))[2]).toBe('info: Unrealized PnL  -0.13 USDT on 1 open position');
  });

  it('balance says "no open positions" instead of a placeholder, and prints zeros as 0.00', async () => {
    const s = session();
    s.server.on('GET /account/balance', () => ({
      status: 200,
      body: {
        asset: 'USDT',
        walletBalance: 0,
        availableBalance: 0,
        unrealizedPnl: 0,
        equity: 0,
        exchange: 'binance-usdm',
      },
    }));
    s.server.on('GET /positions', () => ({ status: 200, body: [] }));
    const lines = await s.type('balance');
    expect(lines).toEqual([
      'info: Wallet balance  0.00 USDT',
      'info: Available       0.00 USDT',
      'info: Unrealized PnL  no open positions',
      'info: Equity          0.00 USDT',
      'muted: Binance USDS-M futures.',
    ]);
    expect(lines.join('\n')).not.toContain('$--');
  });

  it('leverage sets a symbol, checks the range, and passes the exchange refusal on', async () => {
    const s = session();
    s.server.on('POST /account/leverage', (r) =>
      JSON.parse(r.body ?? '{}').symbol === 'BTC/USDT'
        ? { status: 200, body: { message: 'Leverage for BTC/USDT set to 20x.' } }
        : { status: 400, body: { detail: 'Leverage is not valid' } },
    );
    expect(await s.type('leverage btc 20')).toEqual(['success: Leverage for BTC/USDT set to 20x.']);
    expect(JSON.parse(s.server.requests[0]?.body ?? '')).toEqual({ symbol: 'BTC/USDT', leverage: 20 });
    expect(await s.type('lev doge 100')).toEqual(['error: Leverage is not valid']);
    expect(await s.type('leverage btc 200')).toEqual([
      'error: Leverage must be between 1 and 125.',
      'muted: Usage: leverage <asset> <n>',
    ]);
    expect(await s.type('leverage btc 2.5')).toEqual([
      'error: Leverage must be a whole number.',
      'muted: Usage: leverage <asset> <n>',
    ]);
    expect(s.server.count('POST /account/leverage')).toBe(2);
  });

  it('paper reset asks y/N first', async () => {
    const s = session();
    s.server.on('POST /account/paper/reset', () => ({
      status: 200,
      body: { message: 'Paper account reset to 10,000 USDT with no positions.' },
    }));
    expect(await s.answering('paper reset', null)).toEqual(['muted: Cancelled.']);
    expect(s.server.count('POST /account/paper/reset')).toBe(0);
    expect(await s.answering('paper reset', 'y')).toEqual([
      'success: Paper account reset to 10,000 USDT with no positions.',
    ]);
    expect(s.asked).toEqual([
      'Reset the paper account to 10,000 USDT and close every position? [y/N] ',
      'Reset the paper account to 10,000 USDT and close every position? [y/N] ',
    ]);
  });

  it('help lists the trading commands', async () => {
    const s = session();
    const listing = (await s.type('help trading')).join('\n');
    for (const name of ['order', 'long', 'short', 'close', 'close all', 'positions', 'balance', 'leverage']) {
      expect(listing).toMatch(new RegExp(`info: {3}${name} `));
    }
    expect(await s.type('help buy')).toContain('info: Usage: long [amount...]');
  });
});

describe('trades', () => {
  const trade = (over: Partial<Trade>): Trade => ({
    id: '7',
    time: Date.UTC(2026, 10, 26, 21, 48, 3),
    symbol: 'ETH/USDT',
    side: 'sell',
    quantity: 0.079,
    price: 3155.2,
    realizedPnl: -0.1,
    fee: 0.12,
    accountId: 'paper',
    account: { venue: 'paper', mode: 'paper', keyHint: null },
    source: 'manual',
    ruleId: null,
    ruleName: null,
    orderId: 'o-7',
    ...over,
  });

  it('lists the fills newest first with venue and source, and names the older page', async () => {
    const s = session();
    s.server.on('GET /trades', () => ({
      status: 200,
      body: {
        trades: [
          trade({}),
          trade({
            id: '6',
            side: 'buy',
            realizedPnl: 0,
            source: 'rule',
            ruleId: 'r1',
            ruleName: 'Bad news short',
            account: { venue: 'binance', mode: 'live', keyHint: 'abcd…wxyz' },
            accountId: 'k1',
          }),
        ],
        nextCursor: '6',
      },
    }));
    expect(await s.type('trades')).toEqual([
      'muted: TIME (UTC)      SYMBOL    SIDE    QTY     PRICE  REALISED PNL   FEE  VENUE                   BY',
      'info: 11-26 21:48:03  ETH/USDT  SELL  0.079  3,155.20         -0.10  0.12  PAPER                   manual',
      "info: 11-26 21:48:03  ETH/USDT  BUY   0.079  3,155.20          0.00  0.12  BINANCE LIVE abcd…wxyz  rule 'Bad news short'",
      'muted: Older trades: trades --before 6',
    ]);
    expect(s.server.requests.at(-1)?.search).toBe('?limit=20');
    await s.type('trades -n 5 --account paper --before 6');
    expect(s.server.requests.at(-1)?.search).toBe('?limit=5&cursor=6&account=paper');
  });

  it('says when there are none, and needs a login', async () => {
    const s = session();
    s.server.on('GET /trades', () => ({ status: 200, body: { trades: [], nextCursor: null } }));
    expect(await s.type('trades')).toEqual(['muted: No trades yet.']);
    const guest = session(null);
    expect((await guest.type('trades'))[0]).toBe('error: You must be logged in.');
  });
});
