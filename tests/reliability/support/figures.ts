import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each scenario leaves its figures for the run's last lines (see ../figures.setup.ts). */
    figuresDir: string;
  }
}

/** Keeps one scenario's figures; they are printed as one JSON line each once every scenario has run. */
export function recordFigures(scenario: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ scenario, ...figures });
  writeFileSync(path.join(inject('figuresDir'), `${scenario}.json`), `${line}\n`);
}
