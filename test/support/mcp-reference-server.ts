// A reference MCP server for `@modelcontextprotocol/conformance`'s server scenarios, over Streamable
// HTTP with sessions, written from the scenarios' stated requirements (the suite's own reference server
// is not in its npm package). Run it alone with `node test/support/mcp-reference-server.ts [PORT]`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type GetPromptResult,
  type JSONRPCMessage,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Run = (args: Record<string, unknown>, extra: Extra, server: Server) => Promise<CallToolResult> | CallToolResult;

/** A 1×1 PNG and a minimal WAV, base64. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const noArgs = { type: 'object' as const, properties: {} };
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ask the client for input and answer with what it said. */
async function elicit(extra: Extra, params: ElicitRequest['params'], prefix: string): Promise<CallToolResult> {
  const r = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
  return text(`${prefix}: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
}

const tools: Array<Tool & { run: Run }> = [
  {
    name: 'test_simple_text',
    description: 'Answers one text block',
    inputSchema: noArgs,
    run: () => text('This is a simple text response for testing.'),
  },
  {
    name: 'test_image_content',
    description: 'Answers an image',
    inputSchema: noArgs,
    run: () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  },
  {
    name: 'test_audio_content',
    description: 'Answers audio',
    inputSchema: noArgs,
    run: () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
  },
  {
    name: 'test_embedded_resource',
    description: 'Answers an embedded resource',
    inputSchema: noArgs,
    run: () => ({
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'An embedded resource.' },
        },
      ],
    }),
  },
  {
    name: 'test_multiple_content_types',
    description: 'Answers text, an image and a resource',
    inputSchema: noArgs,
    run: () => ({
      content: [
        { type: 'text', text: 'Several kinds of content:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data"}' },
        },
      ],
    }),
  },
  {
    name: 'test_tool_with_logging',
    description: 'Logs three messages while it runs',
    inputSchema: noArgs,
    run: async (_a, extra) => {
      for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
        await pause(20);
      }
      return text('Logged three messages.');
    },
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100',
    inputSchema: noArgs,
    run: async (_a, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100 },
          });
        await pause(20);
      }
      return text(`progress reported to ${String(progressToken)}`);
    },
  },
  {
    name: 'test_error_handling',
    description: 'Always fails',
    inputSchema: noArgs,
    run: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  },
  {
    name: 'test_reconnection',
    description: 'Closes its response stream mid-call; the result follows on the resumed stream',
    inputSchema: noArgs,
    run: async (_a, extra) => {
      const t = extra.sessionId ? sessions.get(extra.sessionId) : undefined;
      t?.closeSSEStream(extra.requestId);
      await pause(100);
      return text('Answered after the stream was closed.');
    },
  },
  {
    name: 'test_sampling',
    description: 'Asks the client for a model completion',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    run: async (args, extra) => {
      const r = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
            maxTokens: 100,
          },
        },
        CreateMessageResultSchema,
      );
      return text(`LLM response: ${r.content.type === 'text' ? r.content.text : r.content.type}`);
    },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for their details',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    run: (args, extra) =>
      elicit(
        extra,
        {
          message: String(args.message),
          requestedSchema: {
            type: 'object',
            properties: { username: { type: 'string' }, email: { type: 'string' } },
            required: ['username', 'email'],
          },
        },
        'User response',
      ),
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks with a default for every primitive type',
    inputSchema: noArgs,
    run: (_a, extra) =>
      elicit(
        extra,
        {
          message: 'Check the defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', default: 'John Doe' },
              age: { type: 'integer', default: 30 },
              score: { type: 'number', default: 95.5 },
              status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', default: true },
            },
          },
        },
        'Elicitation completed',
      ),
  },
  {
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks with every kind of enum',
    inputSchema: noArgs,
    run: (_a, extra) =>
      elicit(
        extra,
        {
          message: 'Pick',
          requestedSchema: {
            type: 'object',
            properties: {
              untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
              titledSingle: {
                type: 'string',
                oneOf: [
                  { const: 'value1', title: 'First Option' },
                  { const: 'value2', title: 'Second Option' },
                  { const: 'value3', title: 'Third Option' },
                ],
              },
              legacyEnum: {
                type: 'string',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
              titledMulti: {
                type: 'array',
                items: {
                  anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                  ],
                },
              },
            },
          },
        },
        'Elicitation completed',
      ),
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'A tool whose input schema uses JSON Schema 2020-12',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    run: (args) => text(`called with ${JSON.stringify(args)}`),
  },
];

const resources = [
  { uri: 'test://static-text', name: 'static-text', description: 'Text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A PNG', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'Subscribable', mimeType: 'text/plain' },
];
const template = new UriTemplate('test://template/{id}/data');

function read(uri: string) {
  if (uri === 'test://static-binary') return { uri, mimeType: 'image/png', blob: PNG };
  if (uri === 'test://static-text') return { uri, mimeType: 'text/plain', text: 'The static text resource.' };
  if (uri === 'test://watched-resource') return { uri, mimeType: 'text/plain', text: 'Watched resource content' };
  const m = template.match(uri);
  if (m) return { uri, mimeType: 'application/json', text: JSON.stringify({ id: m.id, templateTest: true }) };
  throw new McpError(-32002, `Resource not found: ${uri}`);
}

const prompts: Record<
  string,
  { description: string; args?: string[]; get(a: Record<string, string>): GetPromptResult }
> = {
  test_simple_prompt: {
    description: 'A prompt without arguments',
    get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'A simple prompt.' } }] }),
  },
  test_prompt_with_arguments: {
    description: 'A prompt with two arguments',
    args: ['arg1', 'arg2'],
    get: (a) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `arg1='${a.arg1}', arg2='${a.arg2}'` } }],
    }),
  },
  test_prompt_with_embedded_resource: {
    description: 'A prompt with an embedded resource',
    args: ['resourceUri'],
    get: (a) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: a.resourceUri!, mimeType: 'text/plain', text: 'Embedded.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Read the resource above.' } },
      ],
    }),
  },
  test_prompt_with_image: {
    description: 'A prompt with an image',
    get: () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Describe the image above.' } },
      ],
    }),
  },
};

/** One protocol server per session. */
function referenceServer(): Server {
  const server = new Server(
    { name: 'interlock-reference-server', version: '1' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ run: _run, ...t }) => t) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = tools.find((t) => t.name === req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${req.params.name}`);
    try {
      return await tool.run(req.params.arguments ?? {}, extra, server);
    } catch (err) {
      return { ...text(err instanceof Error ? err.message : String(err)), isError: true };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: template.toString(), name: 'template', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => ({ contents: [read(req.params.uri)] }));
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: Object.entries(prompts).map(([name, p]) => ({
      name,
      description: p.description,
      ...(p.args ? { arguments: p.args.map((a) => ({ name: a, required: true })) } : {}),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => {
    const p = prompts[req.params.name];
    if (!p) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${req.params.name}`);
    return p.get(req.params.arguments ?? {});
  });
  server.setRequestHandler(SetLevelRequestSchema, () => ({}));
  server.setRequestHandler(CompleteRequestSchema, (req) => ({
    completion: { values: [`${req.params.argument.value}-one`, `${req.params.argument.value}-two`], hasMore: false },
  }));
  return server;
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

/** Events kept for a client that resumes a closed stream (`Last-Event-ID`). */
function memoryEventStore(): EventStore {
  const events: Array<{ id: string; stream: string; message: JSONRPCMessage }> = [];
  return {
    storeEvent(stream, message) {
      const id = `${stream}::${String(events.length).padStart(8, '0')}`;
      events.push({ id, stream, message });
      return Promise.resolve(id);
    },
    async replayEventsAfter(last, { send }) {
      const stream = last.split('::')[0]!;
      for (const e of events) if (e.stream === stream && e.id > last) await send(e.id, e.message);
      return stream;
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, port: () => number): Promise<void> {
  const local = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port()}`);
  // DNS rebinding: only loopback Host and Origin are answered.
  if (
    !local.includes(req.headers.host ?? '') ||
    (req.headers.origin && !local.includes(new URL(req.headers.origin).host))
  ) {
    res.writeHead(403).end('Forbidden host or origin');
    return;
  }
  const id = req.headers['mcp-session-id'];
  const known = typeof id === 'string' ? sessions.get(id) : undefined;
  if (known) return known.handleRequest(req, res);
  if (req.method !== 'POST' || id !== undefined) {
    res.writeHead(id === undefined ? 400 : 404).end('Unknown or missing session');
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    eventStore: memoryEventStore(),
    retryInterval: 50,
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
  });
  transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
  await referenceServer().connect(transport);
  await transport.handleRequest(req, res);
}

/** Start the reference server on 127.0.0.1 (port 0: any free one). */
export async function startReferenceServer(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    handle(req, res, () => (http.address() as { port: number }).port).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  return {
    url,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startReferenceServer(Number(process.argv[2] ?? 0));
  process.stdout.write(`${url}\n`);
}
