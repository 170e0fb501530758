// What a load balancer does in front of several `interlock serve` replicas, in a few lines of
// node:http: each request goes to the next replica in turn (round robin, no stickiness), bodies
// and answers are streamed through (Server-Sent Events included), and a replica that refuses the
// connection (killed, restarting) is skipped for the next one — safe, because nothing was sent.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A round-robin HTTP proxy on a free loopback port. */
export interface RoundRobinProxy {
  readonly url: string;
  /** Requests forwarded to each upstream port. */
  readonly forwarded: ReadonlyMap<number, number>;
  /** Connections a replica refused (the proxy went on to the next). */
  readonly refused: number;
  close(): Promise<void>;
}

/** Start a proxy that forwards to `ports` (127.0.0.1) in turn. */
export async function startRoundRobinProxy(ports: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  let refused = 0;
  const forwarded = new Map<number, number>(ports.map((p) => [p, 0]));
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    const port = ports[next++ % ports.length]!;
    const up = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        forwarded.set(port, (forwarded.get(port) ?? 0) + 1);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        res.on('close', () => answer.destroy()); // the client left an event stream: leave the replica too
        // The replica died mid-answer (an event stream cut by a kill): cut the client too, so it reconnects.
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && tries < ports.length) {
        refused++;
        forward(req, res, body, tries + 1);
      } else if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    up.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A reviewer's live event stream (GET /api/v1/events), recording the request ids of decisions and expiries it saw. */
export interface EventWatcher {
  /** Request ids of `approval.decided` and `approval.expired` events received. */
  readonly seen: ReadonlySet<string>;
  /** Whether the stream has ended (its replica was killed) since it opened. */
  readonly ended: boolean;
  close(): void;
}

/** Open an event stream at `url` as `token`; resolves once the `ready` event arrived. */
export async function watchEvents(url: string, token: string): Promise<EventWatcher> {
  const seen = new Set<string>();
  const abort = new AbortController();
  let ended = false;
  const res = await fetch(`${url}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`the event stream answered ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let onReady: (() => void) | undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === 'ready') onReady?.();
          if ((event === 'approval.decided' || event === 'approval.expired') && data)
            seen.add(String((JSON.parse(data) as { requestId: unknown }).requestId));
        }
      }
    } catch {
      // aborted or cut: `ended` says so
    }
    ended = true;
  })();
  await ready;
  return {
    seen,
    get ended() {
      return ended;
    },
    close: () => abort.abort(),
  };
}
