import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/** Collects the scenarios' figures and prints them after vitest's summary, one JSON line per scenario. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'sc-reliability-figures-'));
  project.provide('figuresDir', dir);
  return () => {
    const lines = readdirSync(dir)
      .sort()
      .map((f) => readFileSync(path.join(dir, f), 'utf8').trim());
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
