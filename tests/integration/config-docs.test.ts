import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, CONFIG_PAGE, END, configTable } from '../../server/config-docs';
import { ROOT } from '../helpers/process';

describe(CONFIG_PAGE, () => {
  const page = readFileSync(path.join(ROOT, CONFIG_PAGE), 'utf8');

  it('carries the configuration table generated from server/config.ts (run `npm run docs:config`)', () => {
    const start = page.indexOf(BEGIN);
    const end = page.indexOf(END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(page.slice(start + BEGIN.length, end).trim()).toBe(configTable());
  });
});
