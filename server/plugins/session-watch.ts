import type { Principal } from './principal';

/** Close code for a socket whose sign-in ended or whose credential expired (the client reconnects). */
export const SESSION_CLOSE_CODE = 4001;

export interface SessionWatchOptions {
  /** True when the sign-in was logged out or revoked. */
  sessionEnded(familyId: string): Promise<boolean>;
  isDisabled(userId: string): Promise<boolean>;
  /** How often every watched socket is checked again, besides the events (default 30 s). */
  recheckMs?: number;
  now?: () => number;
}

interface Watched {
  principal: Principal;
  close: (code: number, reason: string) => void;
  expiry: ReturnType<typeof setTimeout> | null;
}

/**
 * Keeps authenticated sockets no longer than their sign-in: each is closed when its access token
 * expires (the client takes a fresh ticket), and when a check finds the sign-in logged out, revoked or
 * the account disabled. Checks run when the user's sessions change (`check(userId)`, from the bus, so
 * across nodes) and every `recheckMs` for all.
 */
export class SessionWatch {
  private readonly watched = new Set<Watched>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: SessionWatchOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.watched.size;
  }

  /** Watches one socket; returns the disposer to call when it closes. */
  watch(principal: Principal, close: (code: number, reason: string) => void): () => void {
    const entry: Watched = { principal, close, expiry: null };
    if (principal.expiresAt !== undefined) {
      const left = Math.max(0, principal.expiresAt - this.now());
      entry.expiry = setTimeout(() => this.end(entry, 'credential expired'), Math.min(left, 2 ** 31 - 1));
    }
    this.watched.add(entry);
    if (this.timer === null) {
      this.timer = setInterval(() => void this.checkAll(), this.opts.recheckMs ?? 30_000);
      this.timer.unref?.();
    }
    return () => this.forget(entry);
  }

  /** Checks the sockets of one user now. */
  async check(userId: string): Promise<void> {
    await Promise.all(
      [...this.watched].filter((w) => w.principal.userId === userId).map((w) => this.verify(w)),
    );
  }

  async checkAll(): Promise<void> {
    await Promise.all([...this.watched].map((w) => this.verify(w)));
  }

  closeAll(): void {
    for (const w of [...this.watched]) this.forget(w);
  }

  private async verify(w: Watched): Promise<void> {
    const { userId, familyId } = w.principal;
    try {
      const [disabled, ended] = await Promise.all([
        this.opts.isDisabled(userId),
        familyId === undefined ? false : this.opts.sessionEnded(familyId),
      ]);
      if (disabled || ended) this.end(w, disabled ? 'account disabled' : 'signed out');
    } catch {
      // The database is unreachable: keep the socket; the next check decides.
    }
  }

  private end(w: Watched, reason: string): void {
    if (!this.watched.has(w)) return;
    this.forget(w);
    w.close(SESSION_CLOSE_CODE, reason);
  }

  private forget(w: Watched): void {
    if (w.expiry !== null) clearTimeout(w.expiry);
    this.watched.delete(w);
    if (this.watched.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
