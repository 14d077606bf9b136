import path from 'node:path';
import { ROOT, runProcess, type ProcessRun } from '../helpers/process';

export const CLI = path.join(ROOT, 'bin/signal-console.mjs');

export type CliRun = ProcessRun;

/** Runs the CLI as `npx signal-console …` would (node + the tsx shim), with `input` on stdin. */
export function runCli(
  args: readonly string[],
  input = '',
  env: Record<string, string> = {},
): Promise<CliRun> {
  return runProcess(process.execPath, [CLI, ...args], { input, env });
}
