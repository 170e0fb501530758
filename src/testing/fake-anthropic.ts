import { mkdtempSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A content block the fake model answers with: text, or a tool call. */
export type FakeAnthropicBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** One Messages API request the fake received (the fields a scripted model reads). */
export interface FakeAnthropicRequest {
  model: string;
  system?: unknown;
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: unknown }>;
  tools?: Array<{ name: string }>;
  stream?: boolean;
}

/**
 * What the fake model says to a request: its blocks, or an `{ error }` the API answers with a 500
 * (a model or network failure the client sees). Thrown errors become such answers too.
 */
export type FakeAnthropicResponder = (
  req: FakeAnthropicRequest,
) => FakeAnthropicBlock[] | { error: string } | Promise<FakeAnthropicBlock[] | { error: string }>;

/** A local Anthropic Messages API, with what a Claude Code process needs to use it offline. */
export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>`: the `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  /** The Messages API requests received, in order. */
  readonly requests: FakeAnthropicRequest[];
  /**
   * The environment of an offline Claude Code process against this server: a dummy API key, a fresh
   * HOME and config directory, no telemetry, error reporting, auto-update or other non-essential
   * traffic, no API retries, MCP servers connected before the first turn and their tools always listed.
   */
  env(): Record<string, string>;
  close(): Promise<void>;
}

function sse(res: ServerResponse, model: string, blocks: FakeAnthropicBlock[]): void {
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const ev = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  ev('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
    } else {
      ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    ev('content_block_stop', { index });
  });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  ev('message_stop', {});
  res.end();
}

/**
 * Start a local Anthropic Messages API (streaming and not) whose answers `respond` scripts, for
 * driving the Claude Agent SDK's bundled CLI offline. Other endpoints (token counting) get a minimal answer.
 * @example
 * const api = await startFakeAnthropic(() => [{ type: 'text', text: 'Hello.' }]);
 * for await (const m of query({ prompt: 'hi', options: { env: api.env(), cwd } })) …
 */
export async function startFakeAnthropic(respond: FakeAnthropicResponder): Promise<FakeAnthropic> {
  const requests: FakeAnthropicRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !path.startsWith('/v1/messages') || path.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 1 }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeAnthropicRequest;
      requests.push(body);
      Promise.resolve()
        .then(() => respond(body))
        .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }))
        .then((out) => {
          if (!Array.isArray(out)) {
            const error = { type: 'error', error: { type: 'api_error', message: out.error } };
            res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(error));
          } else if (body.stream) sse(res, body.model, out);
          else {
            const stop = out.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
            const msg = {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: body.model,
              content: out,
              stop_reason: stop,
              stop_sequence: null,
              usage: { input_tokens: 1, output_tokens: 1 },
            };
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(msg));
          }
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A test's open fake never keeps its process alive.
  server.unref();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const home = mkdtempSync(join(tmpdir(), 'interlock-claude-home-'));
  return {
    url,
    requests,
    env: () => ({
      PATH: process.env.PATH ?? '',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-offline-test',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      MCP_CONNECTION_NONBLOCKING: 'false',
      ENABLE_TOOL_SEARCH: 'false',
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
