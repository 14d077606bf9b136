import { describe, expect, it } from 'vitest';
import { recordedFill, recordedReply } from '../../services/trading/testing/serverAnswers';
import { memoryStorage } from '../../services/storage';
import { createTestConsole } from '../testing/scripted';

describe('general commands', () => {
  it('help lists the areas one line each and the first commands to try, in under 30 lines', async () => {
    const { type, commands } = createTestConsole();
    const out = await type('help');
    expect(out[0]).toBe('info: Areas:');
    expect(out).toContainEqual(expect.stringMatching(/^info: {3}trading +orders, closes, positions/));
    expect(out).toContain('info: Start with:');
    expect(out).toContainEqual(expect.stringMatching(/^info: {3}btc long 500 +go long BTC for 500 USDT/));
    expect(out.length).toBeLessThan(30);
    // Every area has its line; no command's summary is spelled out.
    const areas = new Set(commands.registry.list().map((c) => c.area));
    for (const area of areas) expect(out.some((l) => l.startsWith(`info:   ${area} `))).toBe(true);
    expect(out.some((l) => l.includes('Place a market order'))).toBe(false);
  });

  it('help <area> lists that area with a line per command', async () => {
    const { type, commands } = createTestConsole();
    const out = await type('help market');
    expect(out[0]).toBe('info: market commands:');
    const market = commands.registry.list().filter((c) => c.area === 'market');
    for (const c of market) expect(out.some((l) => l.includes(c.name) && l.includes(c.summary))).toBe(true);
    expect(out.at(-1)).toBe('muted: Type "help <command>" for its usage and examples.');
    expect(await type('help MARKET')).toEqual(out);
  });

  it('help on a name that is a command and an area gives the command, then the rest of the area', async () => {
    const { type } = createTestConsole();
    const out = await type('help watchlist');
    expect(out[0]).toMatch(/^info: watchlist — /);
    expect(out).toContain('info: Also in watchlist:');
    expect(out.some((l) => /^info: {3}watch +/.test(l))).toBe(true);
  });

  it('help <command> shows usage, arguments, aliases and examples from the registry', async () => {
    const { type } = createTestConsole();
    expect(await type('help sym')).toEqual([
      'info: symbol — Choose the symbol for the chart and trades.',
      'info: Usage: symbol <ticker>',
      'info: Arguments:',
      'info:   <ticker>  a supported ticker, e.g. eth',
      'info: Aliases: sym',
      'info: Examples:',
      'muted:   symbol eth',
      'muted:   symbol SOL',
    ]);
    expect(await type('help long')).toEqual([
      'info: long — Go long on the chosen symbol for a USDT total (k = thousands): opens or adds to a long; against a short it reduces, closes or flips it (the fill says which, with the realised PnL).',
      'info: Usage: long [amount...]',
      'info: Arguments:',
      'info:   [amount...]  USDT total, k = thousands (e.g. 2.5k), then @ <price> [ioc|post] for a limit order, or sl, tp, trail, exit if wanted (optional)',
      'info: Aliases: buy',
      'info: Examples:',
      'muted:   long 100',
      'muted:   long 2.5k',
      'muted:   buy 250',
      'muted:   long 500 sl 2% tp 5%',
      'muted:   long 1k @ 95000',
    ]);
    expect(await type('help login')).toContain('info:   -r, --remember  remember this device for 30 days');
    expect(await type('help nothing')).toEqual([
      'error: Unknown command: \'nothing\'. Type "help" to list commands.',
    ]);
    expect(await type('help psitions')).toEqual([
      "error: Unknown command: 'psitions'. Did you mean 'positions'?",
    ]);
  });

  it('clear empties the transcript', async () => {
    const { type, stores } = createTestConsole();
    stores.terminal.print([{ text: 'old', tone: 'info' }]);
    const events: string[] = [];
    const stop = stores.terminal.subscribe((e) => events.push(e.type));
    expect(await type('clear')).toEqual([]);
    expect(stores.terminal.entries.value).toEqual([]);
    expect(events).toEqual(['clear']);
    stop();
  });

  it('answers an exit status: 0 done, 1 refused, 2 bad usage', async () => {
    const c = createTestConsole();
    expect((await c.run('help')).exit).toBe(0);
    expect((await c.run('nope')).exit).toBe(2);
    expect((await c.run('symbol')).exit).toBe(2);
    expect((await c.run('long abc')).exit).toBe(2);
    expect((await c.run('positions')).exit).toBe(1); // a guest is refused
  });
});

describe('aliases and chaining', () => {
  it('alias b="btc long" makes "b 5k" an order line; aliases are listed and removed', async () => {
    const c = createTestConsole({ token: 'tok' });
    c.server.on('POST /orders', () => recordedReply('btc long 200'));
    expect(await c.type('alias b="btc long"')).toEqual(['success: Alias b="btc long" saved.']);
    expect(c.state().aliases).toEqual({ b: 'btc long' });
    expect((await c.type('b 5k'))[0]).toBe(`success: Success! Order ID: ${recordedFill('btc long 200').id}`);
    expect(JSON.parse(c.server.requests[0]?.body ?? '{}')).toMatchObject({
      symbol: 'BTC/USDT',
      amount: 5000,
    });
    expect(c.commands.readOrder('b 250')).toMatchObject({
      ok: true,
      order: { pair: 'BTC/USDT', amount: 250 },
    });
    expect(await c.type('alias')).toEqual(['info: b="btc long"']);
    expect(await c.type('unalias b')).toEqual(['success: Alias b removed.']);
    // Gone, `b` is a typo of a command (`be`), not an order.
    expect(await c.type('b 5k')).toEqual(["error: Unknown command: 'b'. Did you mean 'be'?"]);
    expect(await c.type('unalias b')).toEqual(['error: No alias b.']);
  });

  it('refuses alias names that are commands or tickers, and malformed definitions', async () => {
    const c = createTestConsole();
    expect(await c.type('alias long="short"')).toEqual([
      "error: 'long' is a command or a ticker already; pick another name.",
    ]);
    expect(await c.type('alias eth="btc long"')).toEqual([
      "error: 'eth' is a command or a ticker already; pick another name.",
    ]);
    expect(await c.type('alias b')).toEqual([
      'error: Write an alias as name="command", e.g. alias b="btc long".',
    ]);
    expect(await c.type('alias B!="x"')).toEqual([
      "error: An alias name is a lower-case word (letters, digits, dashes): 'b!'.",
    ]);
    expect(c.state().aliases).toEqual({});
  });

  it('keeps aliases per user in storage', async () => {
    const storage = memoryStorage();
    const first = createTestConsole({ storage });
    await first.type('alias e="symbol eth"');
    first.actAs('ann');
    expect(first.state().aliases).toEqual({});
    first.actAs('guest');
    const again = createTestConsole({ storage });
    expect(again.state().aliases).toEqual({ e: 'symbol eth' });
    expect(await again.type('e')).toEqual(['success: Symbol set to ETH/USDT.']);
  });

  it('runs ";"-chained commands in turn and stops at the first that fails', async () => {
    const c = createTestConsole();
    expect(await c.type('symbol eth; chart 1h')).toEqual([
      'success: Symbol set to ETH/USDT.',
      'success: Chart interval set to 1h.',
    ]);
    expect(await c.type('nope; symbol sol')).toEqual([
      'error: Unknown command: \'nope\'. Type "help" to list commands.',
      'muted: Stopped: the rest of the line was not run.',
    ]);
    expect(c.state().symbol).toBe('ETH/USDT');
    expect(await c.type('alias two="symbol sol; chart 4h"')).toEqual([
      'success: Alias two="symbol sol; chart 4h" saved.',
    ]);
    await c.type('two');
    expect(c.state().symbol).toBe('SOL/USDT');
    expect(c.stores.market.interval.value).toBe('4h');
    expect(await c.type('alias loop="loop"')).toEqual(['success: Alias loop="loop" saved.']);
    expect((await c.run('loop')).exit).toBe(2); // an alias loop ends, it does not hang
  });
});

describe('fatfinger and layout reset', () => {
  it('shows and sets the fat-finger cap, kept in storage', async () => {
    const storage = memoryStorage();
    const c = createTestConsole({ storage });
    expect(await c.type('fatfinger')).toEqual(['info: Orders above 25k USDT ask first.']);
    expect(await c.type('fatfinger 0')).toEqual(['error: The cap is an amount above 0, e.g. 25k.']);
    await c.type('fatfinger 2.5k');
    expect(createTestConsole({ storage }).state().fatFingerCap).toBe(2500);
    expect((await c.run('fatfinger')).data).toEqual({ fatFingerCap: 2500 });
  });

  it('layout reset asks the layout to go back to its defaults', async () => {
    const c = createTestConsole();
    expect(await c.type('layout reset')).toEqual(['success: Layout reset.']);
    expect(c.state().layoutResets).toBe(1);
  });
});

describe('help for a word that starts commands', () => {
  it('help rule lists the rule commands instead of calling the word unknown', async () => {
    const s = createTestConsole();
    const out = await s.type('help rule');
    expect(out.slice(0, 4)).toEqual([
      expect.stringMatching(/^info: rule add — Add an auto-trade rule/),
      expect.stringMatching(/^info: rule rm — /),
      expect.stringMatching(/^info: rule on — /),
      expect.stringMatching(/^info: rule off — /),
    ]);
    expect(out.at(-1)).toBe('muted: Type "help rule add" for its usage and examples.');
    expect(await s.type('help zzz')).toEqual([
      `error: Unknown command: 'zzz'. Type "help" to list commands.`,
    ]);
  });
});
