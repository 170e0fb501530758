/** HTTP helpers for tests that talk to a real server with fetch. */

/** A JSON response, read whole. */
export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** `fetch` a JSON API: `body` is sent as JSON, `token` as a bearer header; the reply body is parsed when it is JSON. */
export async function fetchJson<T = unknown>(
  url: string,
  opts: {
    method?: string;
    token?: string;
    body?: unknown;
    rawBody?: RequestInit['body'];
    headers?: Record<string, string>;
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: RequestInit['body'] = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const init: RequestInit & { duplex?: 'half' } = { method: opts.method ?? (body == null ? 'GET' : 'POST'), headers };
  if (body !== undefined && body !== null) init.body = body;
  if (body instanceof ReadableStream) init.duplex = 'half';
  const res = await fetch(url, init);
  const text = await res.text();
  const isJson = res.headers.get('content-type')?.includes('json') ?? false;
  return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T };
}

/** One message of an event stream: an event, or a `:` comment (heartbeat). */
export type SseMessage =
  { kind: 'event'; event: string; data: string; id?: string } | { kind: 'comment'; text: string };

/** Reads a `text/event-stream` response message by message, each wait bounded by a timeout. */
export interface SseReader {
  /** The next message; rejects after `timeoutMs`, or when the stream ends. */
  next(timeoutMs?: number): Promise<SseMessage>;
  /** The next event of type `event`, skipping others; rejects after `timeoutMs` overall. */
  nextEvent(event: string, timeoutMs?: number): Promise<{ event: string; data: string; id?: string }>;
  /** Whether the server ended the stream (waits up to `timeoutMs`). */
  ended(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

function parseBlock(block: string): SseMessage | undefined {
  const lines = block.split('\n');
  if (lines.every((l) => l.startsWith(':')))
    return { kind: 'comment', text: lines.map((l) => l.slice(1).trim()).join('\n') };
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const l of lines) {
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    const value = i < 0 ? '' : l.slice(i + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (data.length === 0) return undefined; // e.g. a retry-only block
  return id === undefined
    ? { kind: 'event', event, data: data.join('\n') }
    : { kind: 'event', event, data: data.join('\n'), id };
}

/** Wrap a streaming response. */
export function sseReader(res: Response): SseReader {
  if (!res.body) throw new Error('sseReader: the response has no body');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const ready: SseMessage[] = [];
  let done = false;
  let pending: Promise<void> | undefined;

  // One read in flight at a time, kept across timeouts so no chunk is lost.
  const pump = (): Promise<void> =>
    (pending ??= reader.read().then(({ value, done: d }) => {
      pending = undefined;
      if (d) done = true;
      buffer += (value ?? '').replace(/\r\n?/g, '\n');
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const m = parseBlock(buffer.slice(0, at));
        buffer = buffer.slice(at + 2);
        if (m) ready.push(m);
      }
    }));

  // Waits in the caller's own loop (no detached reader), so a timed-out wait consumes nothing afterwards.
  const pumpUntil = async (deadline: number, what: string): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const ms = Math.max(0, deadline - Date.now());
    try {
      await Promise.race([
        pump(),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  const take = async (deadline: number, what: string, match: (m: SseMessage) => boolean): Promise<SseMessage> => {
    for (;;) {
      const m = ready.shift();
      if (m && match(m)) return m;
      if (m) continue;
      if (done) throw new Error(`the event stream ended while waiting for ${what}`);
      await pumpUntil(deadline, what);
    }
  };

  return {
    next: (timeoutMs = 5000) => take(Date.now() + timeoutMs, 'the next message', () => true),
    async nextEvent(event, timeoutMs = 5000) {
      const m = await take(Date.now() + timeoutMs, `event "${event}"`, (x) => x.kind === 'event' && x.event === event);
      if (m.kind !== 'event') throw new Error('unreachable');
      return m;
    },
    async ended(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      try {
        while (!done) await pumpUntil(deadline, 'the end of the stream');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
}
