import { signal } from '@preact/signals-core';
import { describe, expect, it } from 'vitest';
import { createTerminalStore } from '../stores/terminal';
import { createVirtualScreen } from '../testing/screen';
import { NO_COMPLETION } from './lineEditor';
import { failure, info, type OutputLine } from './output';
import { promptText, type Prompt } from './render';
import { TYPED_AHEAD_LINE, createTerminalSession, type CommandLine } from './session';

function setup(run: (line: string) => OutputLine[] | Promise<OutputLine[]> = (l) => [info(`ran ${l}`)]) {
  const terminal = createTerminalStore();
  const prompt = signal<Prompt>({ user: 'guest', symbol: 'BTC/USDT' });
  const commands: CommandLine = {
    runLine: async (l) => run(l),
    complete: (before) => ({
      from: 0,
      candidates: ['help', 'symbol', 'sync'].filter((n) => n.startsWith(before)),
    }),
  };
  const session = createTerminalSession({ commands, terminal, prompt });
  const screen = createVirtualScreen();
  const detach = session.attach(screen);
  const texts = () =>
    terminal.entries.value.map((e) => (e.kind === 'input' ? promptText(e.prompt) + e.text : e.text));
  return { terminal, prompt, session, detach, screen, texts };
}

describe('terminal session', () => {
  it('runs a typed line, records it with its output, and prints a fresh prompt', async () => {
    const t = setup();
    await t.session.input('he\t\r');
    expect(t.texts()).toEqual(['guest@BTC/USDT › help', 'ran help']);
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT › help', 'ran help', 'guest@BTC/USDT ›']);
    expect(t.screen.cursor()).toEqual({ row: 2, col: 'guest@BTC/USDT › '.length });
  });

  it('keeps the cursor where the editor has it', async () => {
    const t = setup();
    await t.session.input('symbol\x1b[D\x1b[D');
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT › symbol']);
    expect(t.screen.cursor().col).toBe('guest@BTC/USDT › symb'.length);
  });

  it('lists several completions and returns to the line', async () => {
    const t = setup();
    await t.session.input('s\t\t');
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT › sy', 'symbol  sync', 'guest@BTC/USDT › sy']);
  });

  it('prints ^C on Ctrl+C and leaves the transcript alone', async () => {
    const t = setup();
    await t.session.input('symbol e\x03');
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT › symbol e^C', 'guest@BTC/USDT ›']);
    expect(t.terminal.entries.value).toEqual([]);
  });

  it('waits for a running command before handling the next keys', async () => {
    let finish = (): void => undefined;
    const t = setup((l) =>
      l === 'slow'
        ? new Promise((resolve) => (finish = () => resolve([info('slow done')])))
        : [info(`ran ${l}`)],
    );
    const first = t.session.input('slow\r');
    const second = t.session.input('next\r');
    await Promise.resolve();
    expect(t.texts()).toEqual(['guest@BTC/USDT › slow']);
    finish();
    await Promise.all([first, second]);
    expect(t.texts()).toEqual(['guest@BTC/USDT › slow', 'slow done', 'guest@BTC/USDT › next', 'ran next']);
    expect(t.screen.rows()).toEqual([...t.texts(), 'guest@BTC/USDT ›']);
  });

  it('shows lines run from elsewhere above the line being edited', async () => {
    const t = setup((l) => [failure(`no ${l}`)]);
    await t.session.input('hel');
    await t.session.execute('symbol x', 'ui');
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT › symbol x', 'no symbol x', 'guest@BTC/USDT › hel']);
  });

  it('redraws the prompt when the user or symbol changes', async () => {
    const t = setup();
    await t.session.input('hel');
    t.prompt.value = { user: 'ann', symbol: 'ETH/USDT' };
    expect(t.screen.rows()).toEqual(['ann@ETH/USDT › hel']);
  });

  it('replays the transcript on attach, clears on a clear event, and stops drawing once detached', async () => {
    const t = setup();
    await t.session.input('one\r');
    const again = createVirtualScreen();
    const detachAgain = t.session.attach(again);
    expect(again.rows()).toEqual(['guest@BTC/USDT › one', 'ran one', 'guest@BTC/USDT ›']);
    detachAgain();

    t.terminal.clear();
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT ›']);
    t.detach();
    t.terminal.print([info('late')]);
    t.prompt.value = { user: 'ann', symbol: 'BTC/USDT' };
    expect(t.screen.rows()).toEqual(['guest@BTC/USDT ›']);
  });

  describe('questions from a running command', () => {
    /** `ask` asks for a secret, `name` for a plain answer; each prints what it got. */
    function asking() {
      const terminal = createTerminalStore();
      const prompt = signal<Prompt>({ user: 'guest', symbol: 'BTC/USDT' });
      const commands: CommandLine = {
        async runLine(line) {
          const secret = line === 'ask';
          const answer = await terminal.ask({ label: secret ? 'Password: ' : 'Name: ', secret });
          return [info(answer === null ? 'cancelled' : `got ${answer}`)];
        },
        complete: NO_COMPLETION,
      };
      const session = createTerminalSession({ commands, terminal, prompt });
      const screen = createVirtualScreen();
      session.attach(screen);
      const texts = () =>
        terminal.entries.value.map((e) => (e.kind === 'input' ? promptText(e.prompt) + e.text : e.text));
      return { terminal, session, screen, texts };
    }

    it('reads a secret without echo and keeps it out of the transcript', async () => {
      const t = asking();
      await t.session.input('ask\r');
      expect(t.terminal.question.value).toEqual({ label: 'Password: ', secret: true });
      await t.session.input('hunter22');
      expect(t.screen.rows()).toEqual(['guest@BTC/USDT › ask', 'Password:']);
      expect(t.screen.cursor().col).toBe('Password: '.length);
      await t.session.input('\x7f2\x1b[D\r');
      expect(t.texts()).toEqual(['guest@BTC/USDT › ask', 'Password: ', 'got hunter22']);
      expect(t.screen.rows()).toEqual([
        'guest@BTC/USDT › ask',
        'Password:',
        'got hunter22',
        'guest@BTC/USDT ›',
      ]);
      expect(t.terminal.question.value).toBeNull();
    });

    it('echoes a plain answer and records it', async () => {
      const t = asking();
      await t.session.input('name\r');
      await t.session.input('ann');
      expect(t.screen.rows()).toEqual(['guest@BTC/USDT › name', 'Name: ann']);
      await t.session.input('\r');
      expect(t.texts()).toEqual(['guest@BTC/USDT › name', 'Name: ann', 'got ann']);
    });

    it('cancels on Ctrl+C', async () => {
      const t = asking();
      await t.session.input('ask\rabc\x03');
      expect(t.texts()).toEqual(['guest@BTC/USDT › ask', 'Password: ^C', 'cancelled']);
      expect(t.screen.rows()).toEqual([
        'guest@BTC/USDT › ask',
        'Password: ^C',
        'cancelled',
        'guest@BTC/USDT ›',
      ]);
    });

    it('keeps keys typed before the question showed out of its answer: only what comes after counts', async () => {
      const t = asking();
      await t.session.input('ask\rs3cret\rname\rbo\r');
      expect(t.terminal.question.value).toEqual({ label: 'Password: ', secret: true });
      expect(t.texts()).toEqual(['guest@BTC/USDT › ask', TYPED_AHEAD_LINE.text]);
      await t.session.input('hunter2\r');
      expect(t.texts()).toEqual(['guest@BTC/USDT › ask', TYPED_AHEAD_LINE.text, 'Password: ', 'got hunter2']);
    });

    it('drops type-ahead queued behind a slow command when its password prompt opens', async () => {
      const terminal = createTerminalStore();
      let release = (): void => undefined;
      const commands: CommandLine = {
        async runLine() {
          await new Promise<void>((resolve) => (release = resolve));
          const answer = await terminal.ask({ label: 'Password: ', secret: true });
          return [info(`got ${answer ?? 'nothing'}`)];
        },
        complete: NO_COMPLETION,
      };
      const prompt = signal<Prompt>({ user: 'guest', symbol: 'BTC/USDT' });
      const session = createTerminalSession({ commands, terminal, prompt });
      session.attach(createVirtualScreen());
      void session.input('key add\r');
      void session.input('btc long 500\r');
      release();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(terminal.question.value?.label).toBe('Password: ');
      await session.input('right horse\r');
      const out = terminal.entries.value.filter((e) => e.kind === 'output').map((e) => e.text);
      expect(out).toEqual([TYPED_AHEAD_LINE.text, 'Password: ', 'got right horse']);
    });

    it('stops listening once disposed', async () => {
      const t = asking();
      t.session.dispose();
      void t.terminal.ask({ label: 'Later: ', secret: false });
      expect(t.screen.rows()).toEqual(['guest@BTC/USDT ›']);
    });
  });

  it('tells when the prompt waits empty: not with a line typed, a search open or a question asked', async () => {
    const t = setup();
    expect(t.session.atEmptyPrompt()).toBe(true);
    await t.session.input('help');
    expect(t.session.atEmptyPrompt()).toBe(false);
    await t.session.input('\x03\x12');
    expect(t.session.atEmptyPrompt()).toBe(false);
    await t.session.input('\x1b');
    expect(t.session.atEmptyPrompt()).toBe(true);
    void t.terminal.ask({ label: 'Name: ', secret: false });
    expect(t.session.atEmptyPrompt()).toBe(false);
  });

  it('publishes the line being typed as the draft, empty once it runs', async () => {
    let finish = (): void => undefined;
    const t = setup((l) => (l === 'slow' ? new Promise((resolve) => (finish = () => resolve([]))) : []));
    await t.session.input('btc lo');
    expect(t.session.draft.value).toBe('btc lo');
    await t.session.input('\x7f\x7f');
    expect(t.session.draft.value).toBe('btc ');
    await t.session.input('\x03');
    expect(t.session.draft.value).toBe('');
    const running = t.session.input('slow\r');
    expect(t.session.draft.value).toBe('');
    finish();
    await running;
    expect(t.session.draft.value).toBe('');
  });

  it('shows the venue (paper) after the pair: guest@BTC/USDT paper ›', async () => {
    const t = setup();
    t.prompt.value = { user: 'ann', symbol: 'ETH/USDT', tag: 'PAPER' };
    await t.session.input('long 5\r');
    expect(t.texts()[0]).toBe('ann@ETH/USDT paper › long 5');
    expect(t.screen.rows().at(-1)).toBe('ann@ETH/USDT paper ›');
  });

  it('tells when a line is started: the first key into an empty prompt, or a line from a button', async () => {
    const terminal = createTerminalStore();
    const prompt = signal<Prompt>({ user: 'guest', symbol: 'BTC/USDT' });
    const starts: string[] = [];
    let typed = '';
    const session = createTerminalSession({
      commands: { runLine: async (l) => [info(`ran ${l}`)], complete: NO_COMPLETION },
      terminal,
      prompt,
      onLineStart: () => starts.push(typed),
    });
    typed = 'first key';
    await session.input('5');
    typed = 'more keys';
    await session.input(' long 100');
    await session.input('\r');
    typed = 'next line';
    await session.input('x\x7f');
    typed = 'typed again after erasing';
    await session.input('y\r');
    typed = 'button';
    await session.execute('scorecard', 'ui');
    expect(starts).toEqual(['first key', 'next line', 'typed again after erasing', 'button']);
  });
});
