/**
 * What the notifications module sends, and the channels it goes through (a linked Telegram chat, Web Push).
 * The dispatcher decides what a user gets from the bus's events and their settings; a channel only
 * delivers, queues what it cannot deliver yet, and never throws into the dispatcher.
 */
export type NoteKind =
  | 'alert'
  | 'fill'
  | 'exit'
  | 'retraction'
  | 'dispute'
  | 'liquidation'
  | 'pnl'
  | 'proposal'
  | 'answered'
  | 'protection';

/** A button under a message: what it does is kept on the server, bound to the user, single use. */
export interface NoteAction {
  label: string;
  action:
    | { kind: 'order'; symbol: string; side: 'long' | 'short'; amountUsd: number; signalId?: string }
    | { kind: 'close'; symbol: string; account: string }
    | { kind: 'answer'; decisionId: string; answer: 'confirm' | 'reject' };
}

export interface Note {
  kind: NoteKind;
  userId: string;
  /** One line: the headline, or what happened ("Rule 'BTC news' bought 0.002 BTC"). */
  title: string;
  /** The rest, plain text, a few short lines. */
  body: string;
  /** A link to the source or the card. */
  url?: string | null;
  actions?: NoteAction[];
  /** What the message is about ("decision:12"), so a later note can replace it ("answered in the browser"). */
  ref?: string;
  /** A later note about the same `ref` edits the earlier message where the channel can. */
  replaces?: boolean;
}

export interface NotificationChannel {
  readonly name: 'telegram' | 'push';
  /** True when the channel can reach this user now (a linked chat, a live subscription). */
  reaches(userId: string): Promise<boolean>;
  deliver(note: Note): Promise<void>;
}
