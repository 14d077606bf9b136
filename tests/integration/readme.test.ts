import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process';

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** The README's section under `## title`, up to the next `## ` heading. */
function section(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('README', () => {
  const readme = read('README.md');
  const pkg = JSON.parse(read('package.json')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  it('states the quick start and test commands', () => {
    for (const cmd of [
      'npm ci && npm start',
      'npm test',
      'npm run test:e2e',
      'npm run test:reliability -- --short',
      'bash .ci/run',
      'apt-get install -y chromium',
    ]) {
      expect(readme).toContain(cmd);
    }
  });

  it('names every npm command CI runs (.ci/run runs the README’s test commands)', () => {
    const commands = read('.ci/run')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .flatMap((line) => [...line.matchAll(/\bnpm (?:run )?[\w:-]+(?: -- --short)?/g)].map((m) => m[0]));
    expect(commands).toContain('npm test');
    for (const command of new Set(commands)) expect(readme).toContain(command);
  });

  it('lists every package.json script with what it does and how long it takes', () => {
    const table = section(readme, 'Scripts');
    for (const name of Object.keys(pkg.scripts)) {
      const row = table
        .split('\n')
        .find((line) => line.includes(`\`npm run ${name}`) || line.includes(`\`npm ${name}\``));
      expect(row, `npm run ${name}`).toBeDefined();
      const time = row?.split('|').at(-2)?.trim() ?? '';
      if (!['typecheck', 'lint', 'format:check'].includes(name))
        expect(time, `npm run ${name}`).toMatch(/\d/);
    }
  });

  it('says what each dependency is for', () => {
    const table = section(readme, 'Libraries and what each is for');
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]) {
      expect(table, name).toContain(name.startsWith('@types/') ? '@types/' : name);
    }
  });
});
