import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Web API call the fake received. */
export interface SlackCall {
  method: string;
  token: string | undefined;
  body: Record<string, unknown>;
}

/** A local stand-in for Slack's Web API: records every call and answers like Slack. Not part of the API. */
export interface FakeSlack {
  /** Base URL to give as `apiUrl` (`http://127.0.0.1:PORT/api`). */
  url: string;
  calls: SlackCall[];
  /** Calls of one method, in order. */
  of(method: string): SlackCall[];
  /** Make the next calls of `method` fail with Slack's `error` code. */
  failNext(method: string, error: string, times?: number): void;
  close(): Promise<void>;
}

/** Start the fake on a free port. `chat.postMessage` answers with a new `ts` each time. */
export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const failures = new Map<string, { error: string; times: number }>();
  let seq = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw || '{}') as Record<string, unknown>;
      } catch {
        body = { raw };
      }
      calls.push({ method, token: /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1], body });
      const fail = failures.get(method);
      let answer: Record<string, unknown>;
      if (fail && fail.times > 0) {
        fail.times--;
        answer = { ok: false, error: fail.error };
      } else if (method === 'chat.postMessage') {
        answer = { ok: true, channel: body.channel, ts: `1700000000.${String(++seq).padStart(6, '0')}` };
      } else answer = { ok: true };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    calls,
    of: (method) => calls.filter((c) => c.method === method),
    failNext(method, error, times = 1) {
      failures.set(method, { error, times });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
