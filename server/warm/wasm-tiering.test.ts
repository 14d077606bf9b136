import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { WASM_TIERING_FLAG } from './wasm-tiering';

describe('what compiling PGlite optimised relies on', () => {
  it('PGlite still runs as WebAssembly', () => {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    expect(existsSync(path.join(path.dirname(entry), 'pglite.wasm'))).toBe(true);
  });

  it('Node still lets a process set a V8 flag, and V8 still has this one', () => {
    expect(typeof v8.setFlagsFromString).toBe('function');
    // V8 lists the flags it knows; Node refuses to start with one it does not.
    const listed = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(listed.stdout).toMatch(new RegExp(`^\\s*--${WASM_TIERING_FLAG.replace(/^--no-/, '')}\\b`, 'm'));
    const started = spawnSync(process.execPath, [WASM_TIERING_FLAG, '-e', "process.stdout.write('ok')"], {
      encoding: 'utf8',
    });
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe('ok');
  });
});
