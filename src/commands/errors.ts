/** Why a line could not become a command call. */
export type ParseErrorCode = 'unknown-command' | 'parse' | 'invalid-args';

/**
 * The only error the command-line parser throws: a line that is not a command, does not fit the
 * command's usage, or whose arguments the schema rejects. `usage` is the command's, when one was found.
 */
export class CommandParseError extends Error {
  override readonly name = 'CommandParseError';
  constructor(
    readonly code: ParseErrorCode,
    readonly messages: readonly string[],
    readonly usage?: string,
  ) {
    super(messages.join(' '));
  }
}

/** An answer from a service: its value, or the message to show (the server's detail, "No such rule."). */
export type Answer<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * A refusal already worded for the person, thrown by {@link unwrap}; the registry prints its message as
 * the command's error line (exit status 1), the same line a handler returning `failure(message)` gives.
 */
export class CommandRefusal extends Error {
  override readonly name = 'CommandRefusal';
}

/** The value of an answer that succeeded; otherwise ends the command with the answer's message. */
export function unwrap<T>(answer: Answer<T>): T {
  if (!answer.ok) throw new CommandRefusal(answer.message);
  return answer.value;
}
