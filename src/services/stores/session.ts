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
  /**
   * Aborted when the token is forgotten (logout, a refresh refused): a call sent with the token ends with
   * the sign-in, rather than being answered 401 by a server that has just revoked it. A new token from a
   * refresh is the same sign-in.
   */
  signInEnded?(): AbortSignal;
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
  let signIn = new AbortController();
  const end = (): void => {
    if (token.peek() === null) return;
    signIn.abort();
    signIn = new AbortController();
  };
  return {
    token,
    user,
    resumed,
    markResumed() {
      resumed.value = true;
    },
    isLoggedIn: computed(() => token.value !== null, { name: 'session.isLoggedIn' }),
    getToken: () => token.peek(),
    signInEnded: () => signIn.signal,
    setToken(next) {
      if (next === null) end();
      token.value = next;
      if (next === null) user.value = null;
    },
    setUser(next) {
      user.value = next;
    },
    clear() {
      end();
      token.value = null;
      user.value = null;
    },
  };
}
