import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { success } from '../services/terminal/output';
import { unwrap } from './errors';
import { readLine } from './read';
import { createRegistry } from './registry';
import { createTestConsole } from './testing/scripted';
import { defineCommand, type CommandContext } from './types';

const echo = defineCommand({
  name: 'echo',
  aliases: ['say'],
  area: 'test',
  summary: 'Print the words.',
  usage: 'echo <words...>',
  examples: ['echo hi'],
  options: [{ flags: '-l, --loud', description: 'Upper-case.' }],
  args: z.object({ words: z.array(z.string()), loud: z.boolean().optional() }),
  run(_ctx, { words, loud }) {
    const text = words.join(' ');
    return [success(loud === true ? text.toUpperCase() : text)];
  },
});

const ctx = (): CommandContext => {
  const { stores, api, commands } = createTestConsole();
  return {
    stores,
    api,
    registry: commands.registry,
    signal: new AbortController().signal,
    shell: commands.shell,
  };
};

describe('command registry', () => {
  it('throws on a duplicate name or alias', () => {
    const registry = createRegistry();
    registry.register(echo);
    expect(() => registry.register({ ...echo, aliases: [] })).toThrow(/"echo" is already registered/);
    expect(() => registry.register({ ...echo, name: 'shout', usage: 'shout', aliases: ['say'] })).toThrow(
      /"say" is already registered by "echo"/,
    );
    expect(() => registry.register({ ...echo, name: 'Echo2', usage: 'Echo2' })).toThrow(/lower-case/);
  });

  it('throws on a usage line or option flags the parser cannot read', () => {
    const registry = createRegistry();
    expect(() => registry.register({ ...echo, usage: 'echo <words...> <more>' })).toThrow(/only the last/);
    expect(() => registry.register({ ...echo, usage: 'echo words' })).toThrow(/has "words"/);
    const optional = { flags: '--loud [level]', description: 'How loud.' };
    expect(() => registry.register({ ...echo, options: [optional] })).toThrow(/--loud \[level\]/);
    expect(registry.list()).toEqual([]);
  });

  it('parses arguments and options and dispatches by name or alias', async () => {
    const registry = createRegistry();
    registry.register(echo);
    expect(await registry.runLine('echo "hello  there" you', ctx())).toEqual([success('hello  there you')]);
    expect(await registry.runLine('SAY -l hi', ctx())).toEqual([success('HI')]);
    expect(registry.complete('ec')).toEqual(['echo']);
    expect(registry.complete('x')).toEqual([]);
  });

  it('turns parse errors into typed error lines instead of exiting', async () => {
    const registry = createRegistry();
    registry.register(echo);
    const missing = await registry.runLine('echo', ctx());
    expect(missing[0]).toEqual({
      text: "Missing required argument 'words'.",
      tone: 'error',
      code: 'parse',
    });
    expect(missing[1]?.text).toBe('Usage: echo <words...>');
    const unknownOption = await registry.runLine('echo --nope hi', ctx());
    expect(unknownOption[0]).toMatchObject({
      tone: 'error',
      code: 'parse',
      text: "Unknown option '--nope'.",
    });
    expect(await registry.runLine('echo "open', ctx())).toEqual([
      { text: 'Unclosed " quote.', tone: 'error', code: 'parse' },
    ]);
  });

  it('answers an unknown command with a hint and a blank line with nothing', async () => {
    const { type } = createTestConsole();
    expect(await type('frobnicate now')).toEqual([
      'error: Unknown command: \'frobnicate\'. Type "help" to list commands.',
    ]);
    expect(await type('hlep')).toEqual(["error: Unknown command: 'hlep'. Did you mean 'help'?"]);
    expect(await type('postions')).toEqual(["error: Unknown command: 'postions'. Did you mean 'positions'?"]);
    expect(await type('2fa setpu')).toEqual([
      "error: Unknown command: '2fa setpu'. Did you mean '2fa setup'?",
    ]);
    expect(await type('   ')).toEqual([]);
  });

  it('refuses a command that needs a login before it runs, and opens the login window', async () => {
    const registry = createRegistry();
    let runs = 0;
    registry.register({ ...echo, loginRequired: true, run: () => [success(`ran ${++runs}`)] });
    const guest = ctx();
    expect(await registry.runLine('echo hi', guest)).toEqual([
      { text: 'You must be logged in.', tone: 'error', code: 'failed' },
    ]);
    expect(guest.stores.ui.authModal.value).toBe('login');
    expect(runs).toBe(0);
    // Its usage is still checked first.
    expect((await registry.runLine('echo', guest))[0]?.text).toBe("Missing required argument 'words'.");
    const member = ctx();
    member.stores.session.setToken('tok');
    expect(await registry.runLine('echo hi', member)).toEqual([success('ran 1')]);
  });

  it('turns a failing handler into an error line with the server detail', async () => {
    const registry = createRegistry();
    registry.register({
      ...echo,
      run: () =>
        Promise.reject(Object.assign(new Error('HTTP 400'), { status: 400, data: { detail: 'Nope' } })),
    });
    expect(await registry.runLine('echo x', ctx())).toEqual([
      { text: 'Nope', tone: 'error', code: 'failed' },
    ]);
  });

  it('prints a refused answer unwrapped by a handler as its error line', async () => {
    const registry = createRegistry();
    const refused = { ok: false as const, message: 'No rule 9. Type rules to list yours.' };
    registry.register({ ...echo, run: () => [success(unwrap<string>(refused))] });
    expect(await registry.execute(readLine('echo x', registry), ctx())).toEqual({
      lines: [{ text: refused.message, tone: 'error', code: 'failed' }],
      exit: 1,
    });
  });
});
