/**
 * Postgres' unique_violation (23505), as both drivers report it: on the error itself (node-postgres,
 * PGlite) or on the error Drizzle wraps it in, a few causes deep.
 */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === '23505') return true;
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
  return false;
}

/** The name of the unique constraint an error names, or '' (looked for as deep as the code). */
export function constraintOf(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const constraint = typeof e === 'object' ? (e as { constraint?: unknown }).constraint : undefined;
    if (constraint !== undefined && constraint !== null) return String(constraint);
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
  return '';
}
