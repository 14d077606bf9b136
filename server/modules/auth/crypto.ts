import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** An opaque, URL-safe random token (256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256, hex. Right for high-entropy tokens, which need no salt or stretching. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. */
/** `algorithm: 2` is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax). */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/** A hash of nothing anyone knows, verified when the account does not exist so timing says nothing. */
let decoy: Promise<string> | null = null;

/** Checks a password against a stored hash; with no hash it still spends the same time and fails. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (stored === null || stored === undefined) {
    decoy ??= hashPassword(randomToken());
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
