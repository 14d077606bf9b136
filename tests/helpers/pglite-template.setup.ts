import { ensurePgliteTemplate } from './pglite-template';

/** Vitest global setup: the migrated PGlite template every test's database starts from. */
export default async function setup(): Promise<void> {
  await ensurePgliteTemplate();
}
