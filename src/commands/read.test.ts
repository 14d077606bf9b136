import { describe, expect, it } from 'vitest';
import { readLine, type LineRead } from './read';
import { createTestConsole } from './testing/scripted';

const { commands } = createTestConsole();

/** A read line as `kind name: words`, easy to compare. */
function read(text: string): string {
  const line: LineRead = readLine(text, commands.registry);
  if (line.kind === 'unreadable') return `unreadable: ${line.message}`;
  if (line.kind === 'unknown') return `unknown: ${line.words.join('|')}`;
  return `${line.kind} ${line.definition.name}: ${line.words.join('|')}`;
}

describe('reading a line once', () => {
  it('hands order lines to the grammar with their words as typed', () => {
    expect(read('btc long 5k')).toBe('order order: btc|long|5k');
    expect(read('eth up 5k')).toBe('order order: eth|up|5k');
    expect(read('BUY -5')).toBe('order long: -5');
    expect(read('order "btc long" 5k')).toBe('order order: btc long|5k');
    expect(read(`short "" '--'`)).toBe('order short: |--');
  });

  it('reads signal trades and a ticker alone as the commands they stand for', () => {
    expect(read(' 2 long 500')).toBe('command trade-signal: 2|long|500');
    expect(read('eth')).toBe('command symbol: eth');
    expect(read('"eth"')).toBe('command symbol: eth');
  });

  it('reads other lines as a command and the words after its name', () => {
    expect(read('close all')).toBe('command close all: ');
    expect(read('close btc')).toBe('command close: btc');
    expect(read('feed --min 70 "btc"')).toBe('command feed: --min|70|btc');
    expect(read('rule add btc positive 50-100 long 1k "my rule"')).toBe(
      'command rule add: btc|positive|50-100|long|1k|my rule',
    );
  });

  it('says when a line names no command or cannot be read', () => {
    expect(read('frobnicate now')).toBe('unknown: frobnicate|now');
    expect(read('nope')).toBe('unknown: nope');
    expect(read('order "btc')).toBe('unreadable: Unclosed " quote.');
    expect(read('  ')).toBe('unreadable: Type a command.');
  });
});
