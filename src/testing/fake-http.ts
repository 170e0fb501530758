import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link FakeHttpServer} received. */
export interface ReceivedHttpRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, as a signature must be checked. */
  body: Buffer;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
}

/** How the fake answers: a status (and body), or `hang` (never answer). */
export type FakeHttpAnswer = { status: number; body?: string } | 'hang';

/** A real HTTP server on 127.0.0.1 and a free port, recording what it receives. */
export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request, in arrival order (also those answered with an error or left hanging). */
  readonly received: ReceivedHttpRequest[];
  /** Change how the next requests are answered. */
  answer(how: FakeHttpAnswer | ((req: ReceivedHttpRequest) => FakeHttpAnswer)): void;
  /** Resolve once `count` requests arrived (default timeout 5 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedHttpRequest[]>;
  /** Stop, dropping hanging connections. */
  close(): Promise<void>;
}

/**
 * Start a local HTTP receiver for channel tests: no library mocks, real
 * sockets. Answers 200 `ok` until told otherwise.
 * @example
 * const hook = await startFakeHttpServer();
 * hook.answer((req) => (verify(req) ? { status: 200 } : { status: 401 }));
 */
export async function startFakeHttpServer(
  initial: FakeHttpAnswer | ((req: ReceivedHttpRequest) => FakeHttpAnswer) = { status: 200, body: 'ok' },
): Promise<FakeHttpServer> {
  const received: ReceivedHttpRequest[] = [];
  let how = initial;
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const r: ReceivedHttpRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: () => JSON.parse(body.toString('utf8')) as unknown,
      };
      received.push(r);
      for (const w of waiters) w();
      const a = typeof how === 'function' ? how(r) : how;
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(a.status, { 'Content-Type': 'text/plain' }).end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next) {
      how = next;
    },
    waitFor(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`fake HTTP server got ${received.length} requests, expected ${count}, within ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
