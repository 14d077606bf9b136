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
