import { describe, expect, it } from 'vitest';
import { scriptedSession } from '../testing/scripted';

describe('general commands', () => {
  it('help lists every registered command under its area', async () => {
    const { type, commands } = scriptedSession();
    const out = await type('help');
    expect(out[0]).toBe('info: Commands:');
    expect(out).toContain('muted:   general');
    expect(out).toContain('muted:   market');
    for (const command of commands.registry.list()) {
      expect(out.some((line) => line.includes(command.name) && line.includes(command.summary))).toBe(true);
    }
    expect(out.indexOf('muted:   general')).toBeLessThan(out.findIndex((l) => l.includes('help ')));
  });

  it('help <command> shows usage, aliases and examples from the registry', async () => {
    const { type } = scriptedSession();
    expect(await type('help sym')).toEqual([
      'info: symbol — Choose the symbol for the chart and trades.',
      'info: Usage: symbol <ticker>',
      'info: Aliases: sym',
      'info: Examples:',
      'muted:   symbol eth',
      'muted:   symbol SOL',
    ]);
    expect(await type('help nothing')).toEqual([
      'error: Unknown command: nothing. Type "help" to list commands.',
    ]);
  });

  it('clear empties the transcript', async () => {
    const { type, stores } = scriptedSession();
    stores.terminal.print([{ text: 'old', tone: 'info' }]);
    const events: string[] = [];
    const stop = stores.terminal.subscribe((e) => events.push(e.type));
    expect(await type('clear')).toEqual([]);
    expect(stores.terminal.entries.value).toEqual([]);
    expect(events).toEqual(['clear']);
    stop();
  });
});
