import { readFileSync, writeFileSync } from 'node:fs';
import { AREAS } from '../src/commands';
import { COMMANDS_BEGIN, COMMANDS_END, commandsMarkdown } from '../src/commands/docs';
import { createRegistry } from '../src/commands/registry';

/** The page that carries the "Keyboard and commands" tables, from the project folder. */
export const COMMANDS_PAGE = 'docs/commands.md';

/** The registry with every area, as the browser and the CLI build it. */
export function fullRegistry() {
  const registry = createRegistry();
  for (const area of AREAS) for (const command of area) registry.register(command);
  return registry;
}

/** The commands page with the "Keyboard and commands" tables regenerated between the markers. */
export function withCommandsSection(page: string): string {
  const start = page.indexOf(COMMANDS_BEGIN);
  const end = page.indexOf(COMMANDS_END);
  if (start < 0 || end < start)
    throw new Error(`${COMMANDS_PAGE} lacks the ${COMMANDS_BEGIN} … ${COMMANDS_END} markers`);
  return `${page.slice(0, start + COMMANDS_BEGIN.length)}\n${commandsMarkdown(fullRegistry())}\n${page.slice(end)}`;
}

if (process.argv[1]?.endsWith('commands-docs.ts')) {
  const file = new URL(`../${COMMANDS_PAGE}`, import.meta.url).pathname;
  const before = readFileSync(file, 'utf8');
  const after = withCommandsSection(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(
    after === before
      ? `${COMMANDS_PAGE} already up to date\n`
      : `${COMMANDS_PAGE} commands section updated\n`,
  );
}
