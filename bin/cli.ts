import { Command, CommanderError } from 'commander';
import { createCommands } from '../src/commands';
import { createShell } from '../src/commands/shell';
import { createApi } from '../src/services/api';
import { memoryStorage } from '../src/services/storage';
import { createStores } from '../src/services/stores';
import { formatOutput, plainOutput } from '../src/services/terminal/render';
import { cookieFetch } from './cookieFetch';
import { followFeed, listFeed } from './feed';
import { stdinAnswerer } from './questions';
import { defaultSessionPath, loadSession, saveSession, sessionChanged } from './sessionFile';

/** Exit codes: 0 ok, 1 the server (or a rule) refused, 2 bad usage. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

export interface CliOptions {
  server: string;
  session: string;
  json: boolean;
  yes: boolean;
  follow: boolean;
}

function program(): Command {
  return new Command('signal-console')
    .description(
      'Signal Console from the shell: the same commands as the browser terminal, against a server.',
    )
    .usage('[options] <command...>')
    .option('-s, --server <url>', 'the server', process.env.SIGNAL_CONSOLE_SERVER ?? 'http://127.0.0.1:8080')
    .option('--session <file>', 'where the session is kept (mode 0600)', defaultSessionPath())
    .option('--json', 'print the data of the answer as JSON', false)
    .option('-y, --yes', 'answer yes to y/N questions', false)
    .option('-f, --follow', 'feed: keep streaming new signals', false)
    .argument('[command...]', 'a command line, e.g. btc long 5k (see: help)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help', 'show this help (type "help" for the commands)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) })
    .action(() => undefined);
}

/** Words back into one line, quoting those the shell unquoted (`alias b="btc long"` keeps its quotes). */
const joinWords = (words: readonly string[]): string =>
  words
    .map((w) => (/^[^\s"']*$/.test(w) ? w : /=/.test(w) ? w.replace(/=(.*)$/s, '="$1"') : `"${w}"`))
    .join(' ');

/** Runs the CLI with `argv` (without node and the script); answers the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const cli = program();
  try {
    cli.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  const options = cli.opts<CliOptions>();
  const words = cli.args;
  const server = options.server.replace(/\/+$/, '');
  const out = (text: string): void => void process.stdout.write(`${text}\n`);
  const err = (text: string): void => void process.stderr.write(`${text}\n`);
  if (words.length === 0) {
    cli.outputHelp();
    return EXIT.usage;
  }
  const cancel = new AbortController();
  const onSigint = (): void => cancel.abort();
  process.once('SIGINT', onSigint);
  try {
    if (words[0] === 'feed') {
      const limitAt = words.findIndex((w) => w === '-n' || w === '--limit');
      const limit = limitAt < 0 ? undefined : Number(words[limitAt + 1]);
      if (options.follow) {
        return await followFeed({ server, json: options.json, limit, signal: cancel.signal, write: out });
      }
      return await listFeed(server, limit ?? 10, options.json, out);
    }

    const saved = await loadSession(options.session, server);
    const jar = new Map(Object.entries(saved.cookies));
    const stores = createStores();
    stores.session.setToken(saved.accessToken);
    const api = createApi({
      mainBase: `${server}/api`,
      tradingBase: `${server}/api`,
      fetch: cookieFetch(jar),
      tokens: stores.session,
      navigate: () => undefined,
    });
    const commands = createCommands({ stores, api, shell: createShell({ storage: memoryStorage() }) });
    const answerer = stdinAnswerer(process.stdin, process.stderr, options.yes);
    const stopQuestions = stores.terminal.subscribe((event) => {
      if (event.type !== 'question' || event.question === null) return;
      void answerer.ask(event.question).then((answer) => stores.terminal.answer(answer));
    });
    const outcome = await commands.run(joinWords(words), { signal: cancel.signal });
    stopQuestions();
    answerer.close();
    const now = { server, accessToken: stores.session.getToken(), cookies: Object.fromEntries(jar) };
    if (sessionChanged(saved, now)) await saveSession(options.session, now);

    const colour = process.stdout.isTTY === true;
    for (const line of outcome.lines) {
      if (line.tone === 'error') process.stderr.write(colour ? formatOutput(line) : plainOutput(line));
      else if (!options.json) process.stdout.write(colour ? formatOutput(line) : plainOutput(line));
    }
    if (options.json && outcome.exit === 0) {
      out(JSON.stringify(outcome.data ?? { lines: outcome.lines.map((l) => l.text) }, null, 2));
    }
    return outcome.exit;
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return EXIT.refused;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

if (process.argv[1] !== undefined && /cli\.ts$/.test(process.argv[1])) {
  process.exitCode = await main(process.argv.slice(2));
}
