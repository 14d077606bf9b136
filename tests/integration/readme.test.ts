import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, configTable } from '../../server/config-docs';
import { ROOT } from '../helpers/process';

describe('README', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('carries the configuration table generated from server/config.ts (run `npm run docs:config`)', () => {
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + BEGIN.length, end).trim()).toBe(configTable());
  });

  it('states the quick start and test commands', () => {
    for (const cmd of [
      'npm ci',
      'npm start',
      'npm test',
      'npm run test:e2e',
      'apt-get install -y chromium',
    ]) {
      expect(readme).toContain(cmd);
    }
  });
});
