import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of one service (PostgreSQL, Redis), for cutting it off: `cut()`
 * destroys every connection and resets each new one at once, `restore()` lets them through again. The
 * server under test only ever knows the proxy's address.
 */
export class TcpProxy {
  private readonly pairs = new Set<Socket>();
  private open = true;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | null = null;
    const server = createServer((client) => {
      if (proxy === null || !proxy.open) {
        client.resetAndDestroy();
        return;
      }
      const upstream = createConnection(target);
      const sockets = [client, upstream];
      for (const s of sockets) {
        proxy.pairs.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          proxy?.pairs.delete(s);
          for (const other of sockets) if (other !== s) other.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** Connections open through the proxy now (both ends counted once). */
  connections(): number {
    return this.pairs.size / 2;
  }

  /** Drops every connection and refuses new ones until `restore()`. */
  cut(): void {
    this.open = false;
    for (const s of [...this.pairs]) s.resetAndDestroy();
  }

  restore(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}
