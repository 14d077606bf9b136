import type { Principal } from './principal';

/** Close code for a socket whose sign-in ended or whose credential expired (the client reconnects). */
export const SESSION_CLOSE_CODE = 4001;

export interface SessionWatchOptions {
  /** Of these sign-ins, those logged out or revoked. */
  endedAmong(familyIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** Of these accounts, those disabled. */
  disabledAmong(userIds: readonly string[]): Promise<ReadonlySet<string>>;
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
 * across nodes) and every `recheckMs` for all. A check asks two questions whatever the number of
 * sockets (which accounts are disabled, which sign-ins ended): thirty sockets checked one by one were
 * sixty statements at once every 30 s, and a headline arriving behind them waited for all sixty.
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
  check(userId: string): Promise<void> {
    return this.verify([...this.watched].filter((w) => w.principal.userId === userId));
  }

  checkAll(): Promise<void> {
    return this.verify([...this.watched]);
  }

  closeAll(): void {
    for (const w of [...this.watched]) this.forget(w);
  }

  private async verify(sockets: readonly Watched[]): Promise<void> {
    if (sockets.length === 0) return;
    const users = new Set(sockets.map((w) => w.principal.userId));
    const families = new Set<string>();
    for (const w of sockets) if (w.principal.familyId !== undefined) families.add(w.principal.familyId);
    // Each answer counts on its own: a question the database did not answer keeps its sockets until the
    // next check.
    const [disabled, ended] = await Promise.allSettled([
      this.opts.disabledAmong([...users]),
      families.size === 0 ? Promise.resolve(new Set<string>()) : this.opts.endedAmong([...families]),
    ]);
    for (const w of sockets) {
      const { userId, familyId } = w.principal;
      if (disabled.status === 'fulfilled' && disabled.value.has(userId)) this.end(w, 'account disabled');
      else if (ended.status === 'fulfilled' && familyId !== undefined && ended.value.has(familyId)) {
        this.end(w, 'signed out');
      }
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
