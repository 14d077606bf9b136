import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS_PAGE, fullRegistry, withCommandsSection } from '../../bin/commands-docs';
import { COMMANDS_BEGIN, commandsMarkdown } from '../../src/commands/docs';
import { ROOT } from '../helpers/process';

describe(`${COMMANDS_PAGE} "Keyboard and commands"`, () => {
  const page = readFileSync(path.join(ROOT, COMMANDS_PAGE), 'utf8');

  it('is the section generated from the registry (run `npm run docs:commands` when this fails)', () => {
    expect(page).toContain('# Keyboard and commands');
    expect(page).toContain(COMMANDS_BEGIN);
    expect(withCommandsSection(page)).toBe(page);
  });

  it('lists every command and key', () => {
    const section = commandsMarkdown(fullRegistry());
    // Inside a table cell a `|` is written `\|`.
    for (const command of fullRegistry().list()) {
      expect(section).toContain(`\`${command.usage.replaceAll('|', '\\|')}\``);
    }
    expect(section).toContain('Ctrl+K / Cmd+K');
    expect(section).toContain('`help [command...]`');
  });
});
