import type { Role } from '../../src/contracts/auth';

/** Who a request or a socket acts for, once its credential was checked. */
export interface Principal {
  userId: string;
  role: Role;
  /** The sign-in (refresh family) the token was issued to: logging it out ends the token too. */
  familyId?: string;
  /** When the credential stops being valid (ms since the epoch): a socket opened with it closes then. */
  expiresAt?: number;
}
