import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseArguments, tokenize } from './parse';
import { defineCommand, type CommandDefinition, type OptionSpec } from './types';

const command = (usage: string, options: OptionSpec[] = []): CommandDefinition =>
  defineCommand({
    name: usage.split(' ')[0] ?? usage,
    area: 'test',
    summary: 'A command to parse with.',
    usage,
    examples: [],
    options,
    args: z.object({}),
    run: () => [],
  });

const feedLike = command('feed [asset]', [
  { flags: '--min <impact>', description: 'minimum impact' },
  { flags: '--pos', description: 'positive only' },
  { flags: '-n, --limit <count>', description: 'how many' },
  { flags: '-r, --remember', description: 'remember' },
  { flags: '--max-hold <time>', description: 'hold at most' },
]);

const values = (definition: CommandDefinition, words: string[]) => parseArguments(definition, words);

describe('tokenize', () => {
  it('splits on spaces and keeps quoted spaces, and names an unclosed quote', () => {
    expect(tokenize(` btc  "long  5k" ''`)).toEqual({ words: ['btc', 'long  5k', ''] });
    expect(tokenize(`say 'a "b"'`)).toEqual({ words: ['say', 'a "b"'] });
    expect(tokenize('echo "open').error).toBe('Unclosed " quote.');
  });
});

describe('parseArguments', () => {
  it('reads positionals by the names of the usage line', () => {
    expect(values(command('grant <user> [days]'), ['bob'])).toEqual({ ok: true, values: { user: 'bob' } });
    expect(values(command('grant <user> [days]'), ['bob', '3'])).toEqual({
      ok: true,
      values: { user: 'bob', days: '3' },
    });
    expect(values(command('rule <asset> [name...]'), ['btc', 'a', 'b'])).toEqual({
      ok: true,
      values: { asset: 'btc', name: ['a', 'b'] },
    });
    expect(values(command('order [words...]'), [])).toEqual({ ok: true, values: { words: [] } });
  });

  it('says which argument is missing and how many were too many', () => {
    expect(values(command('symbol <ticker>'), [])).toEqual({
      ok: false,
      message: "Missing required argument 'ticker'.",
    });
    expect(values(command('echo <words...>'), [])).toEqual({
      ok: false,
      message: "Missing required argument 'words'.",
    });
    expect(values(command('symbol <ticker>'), ['btc', 'eth'])).toEqual({
      ok: false,
      message: 'Too many arguments. Expected 1 argument but got 2.',
    });
    expect(values(command('positions'), ['x'])).toEqual({
      ok: false,
      message: 'Too many arguments. Expected 0 arguments but got 1.',
    });
  });

  it('reads switches and options with values in every spelling', () => {
    const read = (words: string[]) => {
      const parsed = values(feedLike, words);
      return parsed.ok ? parsed.values : parsed.message;
    };
    expect(read(['btc', '--pos', '--min', '70'])).toEqual({ asset: 'btc', pos: true, min: '70' });
    expect(read(['--min=70', '-n', '5'])).toEqual({ min: '70', limit: '5' });
    expect(read(['-n5', '--limit', '6'])).toEqual({ limit: '6' });
    expect(read(['-rn', '7'])).toEqual({ remember: true, limit: '7' });
    expect(read(['--max-hold', '2h'])).toEqual({ maxHold: '2h' });
    expect(read(['--min', '--pos'])).toEqual({ min: '--pos' });
  });

  it('treats negative numbers and words after -- as arguments', () => {
    expect(values(feedLike, ['-5'])).toEqual({ ok: true, values: { asset: '-5' } });
    expect(values(feedLike, ['--', '--pos'])).toEqual({ ok: true, values: { asset: '--pos' } });
    expect(values(command('long [amount...]'), ['-x', '--', '-5'])).toMatchObject({ ok: false });
    expect(parseArguments(command('long [amount...]'), ['-x', '--', '-5'], { literal: true })).toEqual({
      ok: true,
      values: { amount: ['-x', '--', '-5'] },
    });
  });

  it('names an unknown option, with the nearest long option when one is close', () => {
    expect(values(feedLike, ['--nope'])).toEqual({ ok: false, message: "Unknown option '--nope'." });
    expect(values(feedLike, ['-x', '--limt'])).toEqual({ ok: false, message: "Unknown option '-x'." });
    expect(values(feedLike, ['--limt', '5'])).toEqual({
      ok: false,
      message: "Unknown option '--limt'\n(Did you mean --limit?).",
    });
    expect(values(feedLike, ['--pos=1'])).toEqual({
      ok: false,
      message: "Unknown option '--pos=1'\n(Did you mean --pos?).",
    });
  });

  it('names an option left without its value, before an unknown option', () => {
    expect(values(feedLike, ['--bad', '-n'])).toEqual({
      ok: false,
      message: "Option '-n, --limit <count>' argument missing.",
    });
  });

  it('checks options before arguments', () => {
    expect(values(command('symbol <ticker>'), ['--x'])).toEqual({
      ok: false,
      message: "Unknown option '--x'.",
    });
  });
});
