import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process';

/**
 * One naming habit on the server: routes, services and repos are `<area>.<role>.ts`
 * (`orders.service.ts`); every other unit is a kebab-case noun (`fired-book.ts`, `push-channel.ts`).
 */
const ROLES = new Set(['routes', 'service', 'repo', 'types']);

/** Why a server file's name breaks the habit, or null when it keeps it. */
function misnamed(file: string): string | null {
  const name = file.slice(file.lastIndexOf('/') + 1).replace(/(\.test)?\.(ts|mjs)$/, '');
  if (file.endsWith('.d.ts')) return null;
  const parts = name.split('.');
  if (parts.some((part) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(part))) return `${file}: not kebab-case`;
  if (parts.length === 1) return null;
  const role = parts.at(-1) ?? '';
  if (parts.length > 2 || !ROLES.has(role))
    return `${file}: ".${role}" is not a role (routes, service, repo, types)`;
  return null;
}

describe('server file names', () => {
  it('keep one habit', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => /\.(ts|mjs)$/.test(file));
    expect(files.length).toBeGreaterThan(100);
    expect(files.map(misnamed).filter((problem) => problem !== null)).toEqual([]);
  });

  it('tells a unit with a made-up role from a service', () => {
    expect(misnamed('server/modules/rules/rules.service.ts')).toBeNull();
    expect(misnamed('server/modules/rules/fired-book.test.ts')).toBeNull();
    expect(misnamed('server/modules/rules/rules.engine.ts')).toMatch(/not a role/);
    expect(misnamed('server/modules/rules/firedBook.ts')).toMatch(/kebab/);
  });
});
