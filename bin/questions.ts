import { createInterface } from 'node:readline';
import type { Question } from '../src/services/terminal/question';

export interface Answerer {
  /** The answer to a question, or null when cancelled (Ctrl+C, end of input). */
  ask(question: Question): Promise<string | null>;
  close(): void;
}

/**
 * Answers a command's questions at the terminal: a secret (a password) is read without echo when
 * stdin is a terminal; piped input answers one line per question. `yes` answers y/N questions with y.
 */
export function stdinAnswerer(input: NodeJS.ReadStream, output: NodeJS.WriteStream, yes: boolean): Answerer {
  let lines: AsyncIterator<string> | null = null;
  let reader: ReturnType<typeof createInterface> | null = null;
  const nextLine = async (): Promise<string | null> => {
    if (lines === null) {
      reader = createInterface({ input, terminal: false });
      lines = reader[Symbol.asyncIterator]();
    }
    const next = await lines.next();
    return next.done === true ? null : next.value;
  };

  const readSecret = (): Promise<string | null> =>
    new Promise((resolve) => {
      let typed = '';
      input.setRawMode(true);
      input.resume();
      const done = (answer: string | null): void => {
        input.off('data', onData);
        input.setRawMode(false);
        input.pause();
        output.write('\n');
        resolve(answer);
      };
      const onData = (chunk: Buffer): void => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done(typed);
          if (ch === '\x03' || ch === '\x04') return done(null);
          if (ch === '\x7f' || ch === '\b') typed = typed.slice(0, -1);
          else if (ch >= ' ') typed += ch;
        }
      };
      input.on('data', onData);
    });

  return {
    async ask(question) {
      if (yes && /\[y\/N\] $/.test(question.label)) return 'y';
      output.write(question.label);
      if (question.secret && input.isTTY) return readSecret();
      const answer = await nextLine();
      if (!input.isTTY && question.secret) output.write('\n');
      return answer;
    },
    close() {
      reader?.close();
    },
  };
}
