import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../helpers/process';

export const CLI = path.join(ROOT, 'bin/signal-console.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as `npx signal-console …` would (node + the tsx shim), with `input` on stdin. */
export function runCli(
  args: readonly string[],
  input = '',
  env: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
