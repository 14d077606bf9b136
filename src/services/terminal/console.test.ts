import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../../commands/testing/scripted';
import { memoryStorage } from '../storage';
import { createTerminalStore } from '../stores/terminal';
import { createFakeClock } from '../testing/fakeClock';
import { createVirtualScreen } from '../testing/screen';
import { createHistoryStore, historyKey } from './history';
import { HISTORY_LIMIT } from './lineEditor';
import { info, link } from './output';
import { formatOutput, SPINNER, type Prompt } from './render';
import { createTerminalSession, type CommandLine } from './session';
import { table } from './table';

/** A terminal session over a command line whose `slow` command waits for its signal or `finish()`. */
function setup(storage = memoryStorage(), user = signal('guest')) {
  const terminal = createTerminalStore();
  const prompt = signal<Prompt>({ user: 'guest', symbol: 'BTC/USDT', tag: 'PAPER' });
  const clock = createFakeClock();
  const seen: { aborted: boolean }[] = [];
  let finish = (): void => undefined;
  const commands: CommandLine = {
    runLine(line, abort) {
      if (line !== 'slow') return Promise.resolve([info(`ran ${line}`)]);
      const state = { aborted: false };
      seen.push(state);
      abort?.addEventListener('abort', () => (state.aborted = true));
      return new Promise((resolve) => (finish = () => resolve([info('slow done')])));
    },
    complete: (before) => ({ from: 0, candidates: ['help'].filter((n) => n.startsWith(before)) }),
  };
  const history = createHistoryStore(storage, user);
  const session = createTerminalSession({ commands, terminal, prompt, history, clock });
  const screen = createVirtualScreen();
  session.attach(screen);
  return { terminal, session, screen, clock, seen, history, finish: () => finish() };
}

describe('terminal history', () => {
  it('is kept per user in storage, bounded to 500 lines', async () => {
    const storage = memoryStorage();
    const user = signal('ann');
    const t = setup(storage, user);
    await t.session.input('symbol eth\rprice\r');
    expect(JSON.parse(storage.get(historyKey('ann')) ?? '[]')).toEqual(['symbol eth', 'price']);
    user.value = 'bob';
    expect(t.history.lines.value).toEqual([]);
    await t.session.input('help\r');
    user.value = 'ann';
    // A new page (a new session on the same storage) gets Up-arrow history back.
    const again = setup(storage, signal('ann'));
    await again.session.input('\x1b[A');
    expect(again.screen.rows().at(-1)).toBe('guest@BTC/USDT paper › price');

    storage.set(historyKey('cat'), JSON.stringify(Array.from({ length: 600 }, (_, i) => `line ${i}`)));
    const many = createHistoryStore(storage, signal('cat'));
    expect(many.lines.value).toHaveLength(HISTORY_LIMIT);
    many.add('newest');
    expect(JSON.parse(storage.get(historyKey('cat')) ?? '[]')).toHaveLength(HISTORY_LIMIT);
    expect(many.lines.value.at(-1)).toBe('newest');
  });

  it('suggests the rest of a history line in grey; → takes it', async () => {
    const t = setup();
    await t.session.input('symbol eth\rsym');
    expect(t.screen.rows().at(-1)).toBe('guest@BTC/USDT paper › symbol eth');
    expect(t.screen.cursor().col).toBe('guest@BTC/USDT paper › sym'.length);
    await t.session.input('\x1b[C\r');
    expect(t.terminal.entries.value.filter((e) => e.kind === 'input').map((e) => e.text)).toEqual([
      'symbol eth',
      'symbol eth',
    ]);
  });

  it('searches backwards with Ctrl+R; Ctrl+R again finds older; Enter runs; Esc gives up', async () => {
    const t = setup();
    await t.session.input('btc long 5k\rprice\reth long 1k\r');
    await t.session.input('\x12long');
    expect(t.screen.rows().at(-1)).toBe("(reverse-i-search)'long': eth long 1k");
    await t.session.input('\x12');
    expect(t.screen.rows().at(-1)).toBe("(reverse-i-search)'long': btc long 5k");
    await t.session.input('\r');
    expect(t.terminal.entries.value.at(-1)?.text).toBe('ran btc long 5k');
    await t.session.input('zq\x12zzz\x1b');
    expect(t.screen.rows().at(-1)).toBe('guest@BTC/USDT paper › zq');
  });
});

describe('running commands', () => {
  it('Ctrl+C cancels a running command: its signal aborts, its output is dropped, the prompt is back', async () => {
    const t = setup();
    const running = t.session.input('slow\r');
    expect(t.seen).toEqual([{ aborted: false }]);
    await t.session.input('\x03');
    await running;
    expect(t.seen).toEqual([{ aborted: true }]);
    expect(t.screen.rows().slice(-2)).toEqual(['^C Cancelled.', 'guest@BTC/USDT paper ›']);
    t.finish();
    await t.session.input('help\r');
    expect(t.terminal.entries.value.map((e) => e.text)).toEqual([
      'slow',
      '^C Cancelled.',
      'help',
      'ran help',
    ]);
  });

  it('shows a spinner while a command waits, and removes it when it ends', async () => {
    const t = setup();
    const running = t.session.input('slow\r');
    t.clock.advance(80);
    expect(t.screen.rows().at(-1)).toBe(`${SPINNER[0]} working… (Ctrl+C cancels)`);
    t.clock.advance(80);
    expect(t.screen.rows().at(-1)).toContain(SPINNER[1]);
    t.finish();
    await running;
    expect(t.screen.rows().slice(-2)).toEqual(['slow done', 'guest@BTC/USDT paper ›']);
    t.clock.advance(400);
    expect(t.screen.rows().at(-1)).toBe('guest@BTC/USDT paper ›');
  });

  it('Ctrl+L clears the screen and keeps the line being typed', async () => {
    const t = setup();
    await t.session.input('help\rsym\x0c');
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT paper › sym']);
    expect(t.terminal.entries.value).toEqual([]);
  });
});

describe('cancelling through the API client', () => {
  it('aborts the HTTP call of a cancelled command, which then ends at once', async () => {
    const c = createTestConsole({ token: 'tok' });
    let calls = 0;
    c.server.on('GET /positions', () => {
      calls += 1;
      return new Promise(() => undefined); // the server never answers
    });
    const controller = new AbortController();
    const pending = c.run('positions', controller.signal);
    await Promise.resolve();
    controller.abort();
    const outcome = await pending;
    expect(outcome).toEqual({ lines: [{ text: 'Cancelled.', tone: 'muted' }], exit: 1 });
    expect(calls).toBe(1);
  });
});

const GREEN = '\x1b[32m';
const RED = '\x1b[31m';

describe('output rendering', () => {
  it('aligns tables and colours sides and PnL', () => {
    const lines = table(
      [{ header: 'SYMBOL' }, { header: 'SIDE' }, { header: 'PNL', align: 'right' }],
      [
        ['BTC/USDT', { text: 'LONG', style: 'long' }, { text: '+12.50', style: 'gain' }],
        ['ETH/USDT', { text: 'SHORT', style: 'short' }, { text: '-3.00', style: 'loss' }],
      ],
    );
    expect(lines.map((l) => l.text)).toEqual([
      'SYMBOL    SIDE      PNL',
      'BTC/USDT  LONG   +12.50',
      'ETH/USDT  SHORT   -3.00',
    ]);
    const row = formatOutput(lines[1] ?? info(''));
    expect(row).toContain('\x1b[32mLONG ');
    expect(row).toContain(`${GREEN}+12.50`);
    expect(formatOutput(lines[2] ?? info(''))).toContain(`${RED} -3.00`);
  });

  it('makes links clickable (OSC 8), in link lines and in plain text', () => {
    const screen = createVirtualScreen();
    screen.write(formatOutput(link('https://example.com/a', 'the story', 'Read ', '.')));
    screen.write(formatOutput(info('See https://example.com/b, then trade.')));
    expect(screen.rows()).toEqual(['Read the story.', 'See https://example.com/b, then trade.']);
    expect(screen.links()).toEqual(['https://example.com/a', 'https://example.com/b']);
  });

  it('prints server errors in red with their detail', async () => {
    const c = createTestConsole({ token: 'tok' });
    c.server.on('GET /price/BTCUSDT', () => ({ status: 503, body: { detail: 'Exchange is down.' } }));
    const [line] = (await c.run('price')).lines;
    expect(line).toMatchObject({ tone: 'error', text: 'Exchange is down.' });
    expect(formatOutput(line ?? info('')).startsWith(RED)).toBe(true);
  });
});
