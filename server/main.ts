import { readFileSync } from 'node:fs';
import { buildApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { fromRoot } from './paths';

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

// Everything the server writes (the embedded database, the outbox, the secrets key) is the owner's alone.
process.umask(0o077);
const app = await buildApp(config);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down: no new connections, closing sockets, flushing the database');
  const force = setTimeout(() => {
    app.log.error('shutdown took over 10 s; exiting');
    process.exit(1);
  }, 10_000);
  force.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

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
