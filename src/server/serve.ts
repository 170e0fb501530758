import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as nodeServe } from '@hono/node-server';
import type { Hono } from 'hono';
import { closeApp } from './app.ts';
import type { AppEnv } from './types.ts';

/** A running server. */
export interface RunningServer {
  /** The port it listens on (the chosen one when started on port 0). */
  readonly port: number;
  /** `http://<host>:<port>`, for clients and tests. */
  readonly url: string;
  /**
   * Stop accepting connections, end open event streams, let requests in flight
   * finish (up to `graceMs`), and resolve when the server has closed.
   */
  close(): Promise<void>;
}

/**
 * Serve `app` over HTTP with @hono/node-server, on `hostname` (default 127.0.0.1).
 * Resolves once it listens.
 * @example
 * const server = await serve({ app: createApp({ interlock }), port: 8080 });
 * process.on('SIGTERM', () => void server.close());
 */
export function serve(opts: {
  app: Hono<AppEnv>;
  port: number;
  hostname?: string;
  graceMs?: number;
}): Promise<RunningServer> {
  const hostname = opts.hostname ?? '127.0.0.1';
  const graceMs = opts.graceMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const server = nodeServe({ fetch: opts.app.fetch, port: opts.port, hostname }, (info: AddressInfo) => {
      server.off('error', reject);
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      let closing: Promise<void> | undefined;
      resolve({
        port: info.port,
        url: `http://${host}:${info.port}`,
        close() {
          closing ??= new Promise<void>((done, fail) => {
            const http = server as Server;
            // Requests in flight may finish within the grace period; then every connection is cut.
            const hardStop = setTimeout(() => http.closeAllConnections?.(), graceMs);
            // Ended event streams leave keep-alive sockets behind: close them as they go idle.
            const sweep = setInterval(() => http.closeIdleConnections?.(), 25);
            server.close((err) => {
              clearTimeout(hardStop);
              clearInterval(sweep);
              if (err) fail(err);
              else done();
            });
            closeApp(opts.app);
            http.closeIdleConnections?.();
          });
          return closing;
        },
      });
    });
    server.once('error', reject);
  });
}
