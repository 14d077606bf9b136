import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startServerProcess, waitForHealth } from '../../tests/helpers/process';

export interface BenchServer {
  base: string;
  port: number;
  dataDir: string;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * The server from its sources on a free loopback port with a fresh data folder (the embedded default
 * unless `env` says otherwise), once its health check answers.
 */
export async function startBenchServer(name: string, env: Record<string, string>): Promise<BenchServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `sc-bench-${name}-`));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env });
  const stop = async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(base);
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, port, dataDir, stop };
}
