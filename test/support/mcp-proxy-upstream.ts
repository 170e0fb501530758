import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An upstream MCP server for the pass-through tests, on the low-level SDK server so every list is
 * paginated (two items a page) and every relay can be triggered by a tool:
 * `ask` sends sampling, elicitation and roots requests to its client; `work` reports progress and logs.
 */
export function proxyUpstream(name: string) {
  const seen = {
    levels: [] as LoggingLevel[],
    subscribed: [] as string[],
    unsubscribed: [] as string[],
    aborted: [] as string[],
    completed: [] as string[],
    reading: [] as string[],
  };
  const tools: Tool[] = [
    { name: 'ask', description: 'Asks the client', inputSchema: { type: 'object', properties: {} } },
    { name: 'work', description: 'Progress and logs', inputSchema: { type: 'object', properties: {} } },
    { name: `${name}_only`, description: 'Unique', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'long_task',
      description: 'Runs only as a task',
      inputSchema: { type: 'object', properties: {} },
      execution: { taskSupport: 'required' },
    },
  ];
  const resources = [
    { uri: 'mem://shared', name: 'shared', mimeType: 'text/plain' },
    { uri: `mem://${name}`, name, mimeType: 'text/plain' },
    { uri: 'mem://slow', name: 'slow', mimeType: 'text/plain' },
  ];
  const prompts = [{ name: 'greet', description: 'Greets' }, { name: `${name}_prompt` }];
  const server = new Server(
    { name, version: '1' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: {},
        logging: {},
        completions: {},
      },
    },
  );
  const page = <T>(items: T[], cursor: string | undefined) => {
    const at = Number(cursor ?? 0);
    return { items: items.slice(at, at + 2), nextCursor: at + 2 < items.length ? String(at + 2) : undefined };
  };
  server.setRequestHandler(ListToolsRequestSchema, (r) => {
    const p = page(tools, r.params?.cursor);
    return { tools: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
  });
  server.setRequestHandler(ListResourcesRequestSchema, (r) => {
    const p = page(resources, r.params?.cursor);
    return { resources: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: `${name}://items/{id}`, name: 'item' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (r, extra) => {
    seen.reading.push(r.params.uri);
    if (r.params.uri === 'mem://slow')
      await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
    if (extra.signal.aborted) seen.aborted.push(r.params.uri);
    return { contents: [{ uri: r.params.uri, mimeType: 'text/plain', text: `${name} has ${r.params.uri}` }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, (r) => (seen.subscribed.push(r.params.uri), {}));
  server.setRequestHandler(UnsubscribeRequestSchema, (r) => (seen.unsubscribed.push(r.params.uri), {}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
  server.setRequestHandler(GetPromptRequestSchema, (r) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `${name}:${r.params.name}` } }],
  }));
  server.setRequestHandler(CompleteRequestSchema, (r) => {
    const ref = r.params.ref;
    seen.completed.push(ref.type === 'ref/prompt' ? ref.name : ref.uri);
    return { completion: { values: [`${name}-${r.params.argument.value}`] } };
  });
  server.setRequestHandler(SetLevelRequestSchema, (r) => (seen.levels.push(r.params.level), {}));
  server.setRequestHandler(CallToolRequestSchema, async (r, extra) => {
    if (r.params.name === 'ask') {
      const sample = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
        CreateMessageResultSchema,
      );
      const elicit = await extra.sendRequest(
        {
          method: 'elicitation/create',
          params: { message: 'who?', requestedSchema: { type: 'object', properties: {} } },
        },
        ElicitResultSchema,
      );
      const roots = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
      const said = sample.content.type === 'text' ? sample.content.text : '';
      return {
        content: [{ type: 'text', text: `${said}|${elicit.action}|${roots.roots.map((x) => x.uri).join(',')}` }],
      };
    }
    if (r.params.name === 'work') {
      const token = extra._meta?.progressToken;
      for (const progress of [1, 2]) {
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress },
          });
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'debug', data: `d${progress}` },
        });
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'error', data: `e${progress}` },
        });
      }
      return { content: [{ type: 'text', text: 'worked' }] };
    }
    return { content: [{ type: 'text', text: `${name} ran ${r.params.name}` }] };
  });
  /** Add a tool and tell the client its list changed. */
  async function addTool(tool: string) {
    tools.push({ name: tool, inputSchema: { type: 'object', properties: {} } });
    await server.sendToolListChanged();
  }
  return { server, seen, addTool };
}
