import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './process';
import { reachesService, serverTestFiles, serviceSuites } from './service-suites';

describe('the server test files CI runs again on PostgreSQL and Redis', () => {
  let dir: string;
  const files: Record<string, string> = {
    'helpers/db.ts':
      'export const url = process.env.TEST_DATABASE_URL;\nexport type Target = { url: string };\n',
    'helpers/bus.ts': 'export const redis = process.env["TEST_REDIS_URL"];\n',
    'helpers/pure.ts': 'export const two = 2;\n',
    'helpers/reexport.ts': "export { url } from './db';\n",
    'support/rules.support.ts': "import { url } from '../helpers/db.js';\nexport const u = url;\n",
    'direct.test.ts': "import { two } from './helpers/pure';\nconst r = process.env.TEST_REDIS_URL;\n",
    'through-support.test.ts':
      "import { describe } from 'vitest';\nimport { u } from './support/rules.support';\n",
    'through-reexport.test.ts': "import {\n  url,\n} from './helpers/reexport';\n",
    'side-effect.test.ts': "import './helpers/bus';\n",
    'dynamic.test.ts': "const m = await import('./helpers/db');\n",
    'type-only.test.ts':
      "import type { Target } from './helpers/db';\nimport { two } from './helpers/pure';\n",
    'pure.test.ts': "import { two } from './helpers/pure';\nimport { describe } from 'vitest';\n",
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sc-suites-'));
    for (const [name, source] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), source);
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('follows imports through support files, re-exports, side-effect and dynamic imports', () => {
    const reached = Object.keys(files)
      .filter((name) => name.endsWith('.test.ts'))
      .filter((name) => reachesService(path.join(dir, name)))
      .sort();
    expect(reached).toEqual([
      'direct.test.ts',
      'dynamic.test.ts',
      'side-effect.test.ts',
      'through-reexport.test.ts',
      'through-support.test.ts',
    ]);
  });

  it('selects every server test that takes its databases from useDatabase() or reads a service URL', async () => {
    const all = serverTestFiles(ROOT);
    const selected = new Set(serviceSuites(ROOT));
    const usesService: string[] = [];
    for (const file of all) {
      const source = await readFile(file, 'utf8');
      if (/\buseDatabase\(|TEST_(?:DATABASE|REDIS)_URL/.test(source))
        usesService.push(path.relative(ROOT, file));
    }
    expect(usesService.length).toBeGreaterThan(0);
    expect(usesService.filter((file) => !selected.has(file))).toEqual([]);
    // …and leaves out the ones that never reach a service, so the second pass is shorter.
    expect(selected.size).toBeLessThan(all.length);
    expect(selected.has('tests/integration/readme.test.ts')).toBe(false);
  });
});
