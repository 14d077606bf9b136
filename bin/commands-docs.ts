import { readFileSync, writeFileSync } from 'node:fs';
import { AREAS } from '../src/commands';
import { COMMANDS_BEGIN, COMMANDS_END, commandsMarkdown } from '../src/commands/docs';
import { createRegistry } from '../src/commands/registry';

/** The registry with every area, as the browser and the CLI build it. */
export function fullRegistry() {
  const registry = createRegistry();
  for (const area of AREAS) for (const command of area) registry.register(command);
  return registry;
}

/** README.md with the "Keyboard and commands" tables regenerated between the markers. */
export function withCommandsSection(readme: string): string {
  const start = readme.indexOf(COMMANDS_BEGIN);
  const end = readme.indexOf(COMMANDS_END);
  if (start < 0 || end < start)
    throw new Error(`README.md lacks the ${COMMANDS_BEGIN} … ${COMMANDS_END} markers`);
  return `${readme.slice(0, start + COMMANDS_BEGIN.length)}\n${commandsMarkdown(fullRegistry())}\n${readme.slice(end)}`;
}

if (process.argv[1]?.endsWith('commands-docs.ts')) {
  const file = new URL('../README.md', import.meta.url).pathname;
  const before = readFileSync(file, 'utf8');
  const after = withCommandsSection(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(
    after === before ? 'README.md already up to date\n' : 'README.md commands section updated\n',
  );
}
