import { describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../services/testing/fakeClock';
import { createFakeTradingView } from '../../services/testing/fakeTradingView';
import { createTestConsole } from '../testing/scripted';

describe('market commands', () => {
  it('symbol upper-cases the ticker, sets the pair and prints it', async () => {
    const { type, stores } = createTestConsole();
    expect(stores.ui.symbol.value).toBe('BTC/USDT');
    expect(await type('symbol eth')).toEqual(['success: Symbol set to ETH/USDT.']);
    expect(stores.ui.symbol.value).toBe('ETH/USDT');
    expect(stores.ui.ticker.value).toBe('ETH');
    await type('sym 1000pepe');
    expect(stores.ui.symbol.value).toBe('1000PEPE/USDT');
  });

  it('rejects a bad or unknown ticker and keeps the symbol', async () => {
    const { type, stores } = createTestConsole();
    for (const bad of ['symbol eth/usdt', 'symbol ABCDEFGHIJKLM', 'symbol "b c"']) {
      expect(await type(bad)).toEqual([
        'error: A ticker is 1 to 12 letters or digits, e.g. BTC.',
        'muted: Usage: symbol <ticker>',
      ]);
    }
    expect(await type('symbol nope')).toEqual([
      'error: Unknown symbol: NOPE. Type a ticker such as BTC or ETH.',
      'muted: Usage: symbol <ticker>',
    ]);
    expect(await type('symbol')).toEqual([
      "error: Missing required argument 'ticker'.",
      'muted: Usage: symbol <ticker>',
    ]);
    expect(stores.ui.symbol.value).toBe('BTC/USDT');
  });

  it('takes a known ticker typed alone as the symbol command, and nothing else', async () => {
    const { type, stores } = createTestConsole();
    expect(await type('sol')).toEqual(['success: Symbol set to SOL/USDT.']);
    expect(stores.ui.symbol.value).toBe('SOL/USDT');
    expect(await type('nope')).toEqual(['error: Unknown command: \'nope\'. Type "help" to list commands.']);
    expect(await type('help')).not.toContain('success: Symbol set to HELP/USDT.');
    expect(stores.ui.symbol.value).toBe('SOL/USDT');
  });

  it('price asks the trading base for the chosen or given symbol and prints it at the symbol tick', async () => {
    const { type, server } = createTestConsole();
    server.on('GET /price/BTCUSDT', () => ({
      status: 200,
      body: { symbol: 'BTCUSDT', price: 97_123.45, time: Date.UTC(2025, 0, 6, 12, 30, 5) },
    }));
    server.on('GET /price/PEPEUSDT', () => ({ status: 404, body: { detail: 'Unknown symbol: PEPEUSDT.' } }));
    server.on('GET /price/BOMEUSDT', () => ({
      status: 200,
      body: { symbol: 'BOMEUSDT', price: 0.008512, time: 0 },
    }));
    expect(await type('price')).toEqual(['info: BTC/USDT 97,123.5', 'muted: as of 12:30:05 UTC']);
    expect(await type('price bome')).toEqual(['info: BOME/USDT 0.0085120', 'muted: as of 00:00:00 UTC']);
    expect(await type('price pepe')).toEqual([
      'error: Unknown symbol: PEPE. Type a ticker such as BTC or ETH.',
      'muted: Usage: price [ticker]',
    ]);
    expect(server.count('GET /price/PEPEUSDT')).toBe(0);
  });

  it('price shows the server detail when the lookup fails', async () => {
    const { type, server } = createTestConsole();
    server.on('GET /price/ETHUSDT', () => ({
      status: 503,
      body: { detail: 'Market data is unavailable right now.' },
    }));
    expect(await type('price eth')).toEqual(['error: Market data is unavailable right now.']);
  });

  it('chart sets the interval, case-insensitively, and rejects others', async () => {
    const { type, stores } = createTestConsole();
    expect(stores.market.interval.value).toBe('15m');
    expect(await type('chart 1H')).toEqual(['success: Chart interval set to 1h.']);
    expect(stores.market.interval.value).toBe('1h');
    expect(await type('chart 7m')).toEqual([
      'error: An interval is one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 8h, 12h, 1d.',
      'muted: Usage: chart <interval>',
    ]);
    expect(stores.market.interval.value).toBe('1h');
  });

  it('chart tv shows TradingView when it loads, chart local goes back, and chart 15m still sets the interval', async () => {
    const tv = createFakeTradingView();
    const { type, run, stores } = createTestConsole({ tradingView: tv.port });
    expect(await type('chart tv')).toEqual([
      "success: Showing TradingView's chart of BINANCE:BTCUSDT.P (15m, UTC).",
    ]);
    expect(stores.chartSource.shown.value).toEqual({ view: 'tv' });
    expect(await type('chart 1h')).toEqual(['success: Chart interval set to 1h.']);
    expect(stores.chartSource.tvChart.value).toEqual({ symbol: 'BINANCE:BTCUSDT.P', interval: '60' });
    expect(await type('chart local')).toEqual(['success: Showing the offline chart.']);
    expect(stores.ui.chartSource.value).toBe('local');
    expect((await run('chart local')).data).toEqual({ view: 'local', note: null });
  });

  it('chart tv says the offline chart stays, and why, when TradingView cannot be shown', async () => {
    const offline = createTestConsole({ tradingView: createFakeTradingView({ online: false }).port });
    const outcome = await offline.run('chart tv');
    expect(outcome.lines.map((l) => l.text)).toEqual([
      'TradingView needs the internet; showing the offline chart.',
    ]);
    expect(outcome.exit).toBe(1);

    const clock = createFakeClock();
    const slow = createTestConsole({ tradingView: createFakeTradingView({ answer: 'hang' }).port, clock });
    const answer = slow.type('chart tv');
    await vi.waitFor(() => expect(slow.stores.chartSource.shown.value).toEqual({ view: 'loading' }));
    clock.advance(5_000);
    expect(await answer).toEqual(['error: TradingView did not load within 5 s; showing the offline chart.']);

    const cli = createTestConsole();
    expect(await cli.type('chart tv')).toEqual(['error: There is no chart here.']);
  });

  it('completes chart with its sub-commands and the intervals', () => {
    const { complete } = createTestConsole();
    expect(complete('chart ')).toEqual(expect.arrayContaining(['tv', 'local', '15m', '1d']));
    expect(complete('chart t')).toEqual(['tv']);
  });
});
