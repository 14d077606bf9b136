import { readFileSync } from 'node:fs';
import { buildApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { stdoutSink } from './log-sink';
import { fromRoot } from './paths';
import { exitOnSignals } from './shutdown';
import { tuneProcess } from './warm';

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

// The first headline after a start as fast as the next (before the app opens the embedded database).
tuneProcess(config);

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
