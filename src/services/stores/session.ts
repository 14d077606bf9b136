import { computed, signal, type ReadonlySignal } from '@preact/signals-core';

/** The signed-in user, as far as the browser needs it. */
export interface SessionUser {
  username: string;
  role: string;
  subscriptionStatus: string | null;
  id?: string;
  email?: string;
  isTwoFactorEnabled?: boolean;
}

/** Where the API client reads and writes the access token. Memory only, never browser storage. */
export interface TokenStore {
  getToken(): string | null;
  setToken(token: string | null): void;
}

export interface SessionStore extends TokenStore {
  readonly token: ReadonlySignal<string | null>;
  readonly user: ReadonlySignal<SessionUser | null>;
  /** docs/product.md §6: logged in means holding an access token. */
  readonly isLoggedIn: ReadonlySignal<boolean>;
  /** False until the start-up refresh has answered (signed back in, or a guest): pages that need the user wait. */
  readonly resumed: ReadonlySignal<boolean>;
  markResumed(): void;
  setUser(user: SessionUser | null): void;
  /** Forgets the token and the user. */
  clear(): void;
}

export function createSessionStore(): SessionStore {
  const token = signal<string | null>(null, { name: 'session.token' });
  const user = signal<SessionUser | null>(null, { name: 'session.user' });
  const resumed = signal(false, { name: 'session.resumed' });
  return {
    token,
    user,
    resumed,
    markResumed() {
      resumed.value = true;
    },
    isLoggedIn: computed(() => token.value !== null, { name: 'session.isLoggedIn' }),
    getToken: () => token.peek(),
    setToken(next) {
      token.value = next;
      if (next === null) user.value = null;
    },
    setUser(next) {
      user.value = next;
    },
    clear() {
      token.value = null;
      user.value = null;
    },
  };
}
