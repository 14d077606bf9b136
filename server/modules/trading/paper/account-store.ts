import { isUniqueViolation } from '../../../db/errors';
import {
  applyEvent,
  emptyAccount,
  STARTING_BALANCE,
  type LedgerEvent,
  type PaperAccountState,
} from './account';
import type { KeyClaim } from '../exchange';
import type { LedgerRepo } from './ledger.repo';
import { fromSnapshot, SNAPSHOTS_KEPT, toSnapshot } from './snapshot';

/** Attempts of one task when other processes keep appending to the same ledger first. */
export const MAX_ATTEMPTS = 8;

export interface Loaded {
  state: PaperAccountState;
  seq: number;
}

export interface AccountStoreOptions {
  repo: LedgerRepo;
  /** Ledger rows between snapshots; `null` neither writes nor reads snapshots. */
  snapshotEvery: number | null;
  /** A snapshot could not be written; the account is fine, its next load only replays more. */
  onSnapshotError?: (account: string, err: unknown) => void;
  /** Waits between attempts after a conflict with another process. */
  sleep: (ms: number) => Promise<void>;
  /** The account's state as this process now holds it (replayed, or after a commit). */
  onState?: (account: string, state: PaperAccountState) => void;
}

/**
 * The paper accounts' state as their ledgers make it: each loaded once (its latest snapshot and the rows
 * after it) and kept in memory, changed only by an event written to the ledger first, and worked on one
 * task at a time per account. Another process appending to the same ledger shows as a unique-key
 * conflict: the account is replayed and the task runs again.
 */
export class AccountStore {
  private readonly accounts = new Map<string, Promise<Loaded>>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly opts: AccountStoreOptions) {}

  /** Every account loaded in this process, as it is loading or loaded. */
  loaded(): IterableIterator<[string, Promise<Loaded>]> {
    return this.accounts.entries();
  }

  load(account: string): Promise<Loaded> {
    let loading = this.accounts.get(account);
    if (!loading) {
      const replayed: Promise<Loaded> = this.replay(account).then((loaded) => {
        // Not when the account was forgotten (or committed to) meanwhile: that state is newer.
        if (this.accounts.get(account) === replayed) this.opts.onState?.(account, loaded.state);
        return loaded;
      });
      loading = replayed;
      this.accounts.set(account, loading);
      loading.catch(() => this.accounts.delete(account));
    }
    return loading;
  }

  /** Forgets a cached account (another process changed it); the next use replays its ledger. */
  invalidate(account: string): void {
    this.accounts.delete(account);
  }

  /** Writes the event to the ledger, then (only then) makes its state current. */
  async commit(account: string, event: LedgerEvent) {
    const committed = await this.commitKeyed(account, event);
    if (committed === null) throw new Error('ledger row not written');
    return committed;
  }

  /**
   * {@link commit}, taking the fill's Idempotency-Key in the same statement (see `LedgerRepo.append`):
   * null, and nothing changed, when the key was taken already.
   */
  async commitKeyed(account: string, event: LedgerEvent, key?: KeyClaim) {
    const loaded = await this.load(account);
    const { state, effects } = applyEvent(loaded.state, event);
    const seq = loaded.seq + 1;
    const createdAt = await this.opts.repo.append(account, seq, event, effects, state.cash.toString(), key);
    if (createdAt === null) return null;
    this.accounts.set(account, Promise.resolve({ state, seq }));
    this.opts.onState?.(account, state);
    // After the append, not with it: the row is committed by now, so the snapshot can never name a seq
    // whose event is not in the ledger.
    if (this.opts.snapshotEvery !== null && seq % this.opts.snapshotEvery === 0) {
      await this.saveSnapshot(account, seq, state);
    }
    return { effects, at: createdAt.getTime(), before: loaded.state, after: state };
  }

  /**
   * Runs `task` after every earlier task of the same account. If another process appended to the same
   * ledger first (a unique-key conflict), the account is replayed and the task runs again on the fresh
   * state, up to MAX_ATTEMPTS times in all. Each new attempt waits a random while that doubles each
   * time, so that two processes busy on one account stop colliding in step.
   */
  serial<T>(account: string, task: (retry: boolean) => Promise<T>): Promise<T> {
    const attempt = async (): Promise<T> => {
      for (let n = 1; ; n++) {
        try {
          return await task(n > 1);
        } catch (err) {
          if (!isUniqueViolation(err) || n >= MAX_ATTEMPTS) throw err;
          this.invalidate(account);
          await this.opts.sleep(Math.random() * 5 * 2 ** (n - 1));
        }
      }
    };
    const previous = this.queues.get(account) ?? Promise.resolve();
    const next = previous.then(attempt, attempt);
    const settled = next.catch(() => undefined);
    this.queues.set(account, settled);
    void settled.then(() => {
      if (this.queues.get(account) === settled) this.queues.delete(account);
    });
    return next;
  }

  /** Never fails: the event is booked whatever happens here, and a missing snapshot only costs replay. */
  private async saveSnapshot(account: string, seq: number, state: PaperAccountState): Promise<void> {
    try {
      await this.opts.repo.saveSnapshot(account, seq, toSnapshot(state), SNAPSHOTS_KEPT);
    } catch (err) {
      this.opts.onSnapshotError?.(account, err);
    }
  }

  /** The latest snapshot (if any) and the ledger rows after it. */
  private async replay(account: string): Promise<Loaded> {
    let state = emptyAccount();
    let from = 0;
    if (this.opts.snapshotEvery !== null) {
      const snapshot = await this.opts.repo.latestSnapshot(account);
      const restored = snapshot && fromSnapshot(snapshot.state);
      if (snapshot && restored) {
        state = restored;
        from = snapshot.seq;
      }
    }
    const rows = await this.opts.repo.load(account, from);
    for (const row of rows) state = applyEvent(state, row.event).state;
    const seq = rows.at(-1)?.seq ?? from;
    // A ledger older than snapshots, or whose snapshots failed: record where this replay got to.
    if (this.opts.snapshotEvery !== null && rows.length >= this.opts.snapshotEvery) {
      await this.saveSnapshot(account, seq, state);
    }
    if (seq > 0) return { state, seq };
    const opening: LedgerEvent = { type: 'deposit', amount: STARTING_BALANCE.toString(), reason: 'initial' };
    const applied = applyEvent(state, opening);
    try {
      await this.opts.repo.append(account, 1, opening, applied.effects, applied.state.cash.toString());
    } catch (err) {
      // Another process opened the account at the same moment: its opening row is the one to read.
      if (isUniqueViolation(err)) return this.replay(account);
      throw err;
    }
    return { state: applied.state, seq: 1 };
  }
}
