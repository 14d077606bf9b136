import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { buildApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { stdoutSink } from './log-sink';
import { fromRoot } from './paths';
import { exitOnSignals } from './shutdown';

const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
  version: string;
};

let config: Config;
try {
  config = loadConfig(process.env, pkg.version);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

// The embedded database is WebAssembly. By default V8 compiles it with its quick baseline compiler and
// recompiles a function with the optimising one only once it has run a while, so the first headline after
// a start ran the database's statements in slower code (its thirty positions ~15-20 ms later than the
// next headline's). Compiled optimised from the start instead: ~0.7 s more to start and ~2 s more CPU,
// once. Set before the database module is compiled (when the app opens it).
v8.setFlagsFromString('--no-wasm-dynamic-tiering');

// Everything the server writes (the embedded database, the outbox, the secrets key) is the owner's alone.
process.umask(0o077);
// Log lines never hold the process: a supervisor that stops reading, or is gone, costs lines, not the exit.
// (Development logs go through pino-pretty instead.)
const app = await buildApp(config, config.NODE_ENV === 'development' ? {} : { logStream: stdoutSink() });
exitOnSignals(app, { deadlineMs: config.SHUTDOWN_TIMEOUT_MS, exit: (code) => process.exit(code) });

try {
  await app.listen({ port: config.PORT, host: config.HOST });
  const health = await app.health.snapshot();
  app.log.info(
    { url: `http://${config.HOST}:${config.PORT}`, dataDir: config.DATA_DIR, standins: health.standins },
    `Signal Console ${config.version} is serving http://${config.HOST}:${config.PORT}`,
  );
} catch (err) {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    process.stderr.write(
      `Port ${config.PORT} on ${config.HOST} is already in use: set PORT to another port.\n`,
    );
  } else {
    app.log.error({ err }, 'could not start');
  }
  await app.close().catch(() => {});
  process.exit(1);
}
