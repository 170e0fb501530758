import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { refuse, type AuthedRequest } from './http-guard.ts';

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** Who opened it (undefined without tokens): only they may use it. */
  principal: string | undefined;
  /** HTTP requests open on the session (a held call, the GET stream): while any is open it is not idle. */
  open: number;
  idle?: NodeJS.Timeout;
  closed?: boolean;
}

/**
 * The Streamable HTTP sessions of one listener: a protocol server and a transport each, by session id.
 * A session lives until its client sends DELETE, it has had no open request for `idleMs`, or `closeAll`.
 */
export class SessionTable {
  readonly #sessions = new Map<string, Session>();
  readonly #newServer: () => Server;
  readonly #idleMs: number;
  readonly #log: (line: string) => void;

  constructor(newServer: () => Server, idleMs: number, log: (line: string) => void) {
    this.#newServer = newServer;
    this.#idleMs = idleMs;
    this.#log = log;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * A request: with `Mcp-Session-Id`, to that session when it is the caller's (else 404, as for a
   * session that does not exist); without, to a new session, which the transport opens only for
   * `initialize` (anything else is refused there: 400, not initialized).
   */
  async handle(req: AuthedRequest, res: ServerResponse): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid !== 'string') return this.#open(req, res);
    const s = this.#sessions.get(sid);
    if (!s || s.principal !== req.auth?.clientId)
      return refuse(res, 404, 'session_not_found', 'Session not found: it expired or was closed. Initialize again.');
    this.#track(s, res);
    await s.transport.handleRequest(req, res);
  }

  /** Close every session and its protocol server. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.server.close().catch(() => undefined)));
  }

  async #open(req: AuthedRequest, res: ServerResponse): Promise<void> {
    const server = this.#newServer();
    const s: Session = { server, transport: undefined!, principal: req.auth?.clientId, open: 0 };
    s.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void this.#sessions.set(id, s),
      onsessionclosed: (id) => this.#log(`interlock mcp: session ${id} closed by its client`),
    });
    // The gateway's server may have its own close handler (its relays, say): keep it.
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      s.closed = true;
      clearTimeout(s.idle);
      if (s.transport.sessionId) this.#sessions.delete(s.transport.sessionId);
    };
    await server.connect(s.transport);
    this.#track(s, res);
    // A refused first request (not `initialize`) made no session: drop the server made for it.
    res.once('close', () => s.transport.sessionId === undefined && this.#close(s));
    await s.transport.handleRequest(req, res);
  }

  /** Count the request as open on the session; the idle clock runs only while none is. */
  #track(s: Session, res: ServerResponse): void {
    s.open++;
    clearTimeout(s.idle);
    res.once('close', () => {
      if (--s.open > 0 || s.closed) return;
      s.idle = setTimeout(() => {
        this.#log(`interlock mcp: session ${s.transport.sessionId ?? '(new)'} closed after ${this.#idleMs} ms idle`);
        this.#close(s);
      }, this.#idleMs).unref();
    });
  }

  #close(s: Session): void {
    void s.server.close().catch(() => undefined);
  }
}
