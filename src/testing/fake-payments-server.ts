import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A side effect applied by the fake payment API. */
export interface AppliedPayment {
  idempotencyKey: string;
  body: Record<string, unknown>;
}

/** A local HTTP payment API that applies each idempotency key once and records every call. */
export interface FakePaymentsServer {
  url: string;
  /** Effects applied (one per distinct key). */
  readonly applied: AppliedPayment[];
  /** Every request received, duplicates included. */
  readonly received: number;
  close(): Promise<void>;
}

/**
 * Start the fake payment API on a free loopback port. `POST /refunds` with
 * header `Idempotency-Key` applies once per key and answers the same body for
 * a repeated key, as real payment APIs do.
 */
export async function startFakePaymentsServer(): Promise<FakePaymentsServer> {
  const applied: AppliedPayment[] = [];
  const byKey = new Map<string, string>();
  let received = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      received++;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key === '') {
        res.writeHead(400).end('{"error":"Idempotency-Key required"}');
        return;
      }
      let answer = byKey.get(key);
      if (answer === undefined) {
        const body = JSON.parse(raw || '{}') as Record<string, unknown>;
        applied.push({ idempotencyKey: key, body });
        answer = JSON.stringify({ id: `re_${applied.length}`, ...body });
        byKey.set(key, answer);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    applied,
    get received() {
      return received;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
