// What the MCP gateway passes through besides gated tool calls, over the SDK's in-memory transport:
// two upstreams that clash on some names, paginate every list and use every server-to-client request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { sqliteBackend } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { PolicyConfig } from '../../core/index.ts';
import { proxyUpstream } from '../../../test/support/mcp-proxy-upstream.ts';
import { RELAYED_CAPABILITIES } from './wire.ts';
import { createMcpGateway, type McpGateway } from './gateway.ts';

const backend = sqliteBackend();
/** Wait until `cond` holds (notifications arrive on their own schedule). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}
type Text = { content: Array<{ text?: string }>; isError?: boolean };

/** The gateway's client to one upstream, connected in memory, declaring what the gateway relays. */
async function link(server: ReturnType<typeof proxyUpstream>['server']) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'gw', version: '1' }, { capabilities: RELAYED_CAPABILITIES });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

/** An MCP client of the gateway that answers sampling, elicitation and roots as `who`. */
async function agent(gw: McpGateway, who: string) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: who, version: '1' },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: 'assistant',
    content: { type: 'text', text: `${who} says hi` },
    model: 'm',
  }));
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file:///${who}` }] }));
  await Promise.all([gw.newServer().connect(a), client.connect(b)]);
  return client;
}

describe('MCP gateway pass-through (resources, prompts, completion, logging, relays, lists)', () => {
  let il: Interlock;
  let gw: McpGateway;
  let one: ReturnType<typeof proxyUpstream>;
  let two: ReturnType<typeof proxyUpstream>;
  let alice: Client;
  let bob: Client;

  before(async () => {
    const rules = ['one__ask', 'two__ask', 'one__work', 'two__work', 'one_only', 'two_only', 'added'].map((t) => [
      t,
      [{ id: 'auto', tier: 'auto' as const, reason: 'test' }],
    ]);
    il = createInterlock({
      store: await backend.create(),
      policy: { tools: Object.fromEntries(rules) as PolicyConfig['tools'] },
    });
    one = proxyUpstream('one');
    two = proxyUpstream('two');
    gw = await createMcpGateway({
      interlock: il,
      upstreams: { one: await link(one.server), two: await link(two.server) },
    });
    alice = await agent(gw, 'alice');
    bob = await agent(gw, 'bob');
  });
  after(async () => {
    await gw.close();
    await backend.destroy();
  });

  it('declares the union of the upstreams’ capabilities', () => {
    const caps = alice.getServerCapabilities()!;
    assert.deepEqual(Object.keys(caps).sort(), ['completions', 'logging', 'prompts', 'resources', 'tools']);
    assert.equal(caps.resources?.subscribe, true);
  });

  it('tools: every page, clashing names namespaced, task-required tools not listed', async () => {
    const names = (await alice.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['one__ask', 'one__work', 'one_only', 'two__ask', 'two__work', 'two_only']);
    const r = (await alice.callTool({ name: 'two_only', arguments: {} })) as Text;
    assert.equal(r.content[0]?.text, 'two ran two_only');
  });

  it('resources: every page; a clashing URI prefixed and read back from its upstream; templates route', async () => {
    const uris = (await alice.listResources()).resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, [
      'mem://one',
      'mem://two',
      'one+mem://shared',
      'one+mem://slow',
      'two+mem://shared',
      'two+mem://slow',
    ]);
    const shared = await alice.readResource({ uri: 'two+mem://shared' });
    assert.deepEqual(shared.contents[0], {
      uri: 'two+mem://shared',
      mimeType: 'text/plain',
      text: 'two has mem://shared',
    });
    assert.deepEqual((await alice.readResource({ uri: 'mem://one' })).contents[0], {
      uri: 'mem://one',
      mimeType: 'text/plain',
      text: 'one has mem://one',
    });
    const templates = (await alice.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    assert.deepEqual(templates, ['one://items/{id}', 'two://items/{id}']);
    assert.deepEqual((await alice.readResource({ uri: 'two://items/7' })).contents[0], {
      uri: 'two://items/7',
      mimeType: 'text/plain',
      text: 'two has two://items/7',
    });
    await assert.rejects(alice.readResource({ uri: 'nowhere://x' }), /No upstream serves resource/);
  });

  it('resources: a read the client cancels is cancelled upstream', async () => {
    const ac = new AbortController();
    const read = alice.readResource({ uri: 'one+mem://slow' }, { signal: ac.signal });
    await until(() => one.seen.reading.includes('mem://slow'));
    ac.abort();
    await assert.rejects(read);
    await until(() => one.seen.aborted.length > 0);
    assert.deepEqual(one.seen.aborted, ['mem://slow']);
  });

  it('subscriptions: the upstream subscribed once per URI, updates go to the subscribers under their URI', async () => {
    const updates: Record<string, string[]> = { alice: [], bob: [] };
    alice.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.alice!.push(n.params.uri));
    bob.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.bob!.push(n.params.uri));
    await alice.subscribeResource({ uri: 'two+mem://shared' });
    await bob.subscribeResource({ uri: 'two+mem://shared' });
    assert.deepEqual(two.seen.subscribed, ['mem://shared']);
    await two.server.sendResourceUpdated({ uri: 'mem://shared' });
    await until(() => updates.alice!.length > 0 && updates.bob!.length > 0);
    assert.deepEqual(updates, { alice: ['two+mem://shared'], bob: ['two+mem://shared'] });
    await alice.unsubscribeResource({ uri: 'two+mem://shared' });
    assert.deepEqual(two.seen.unsubscribed, [], 'bob is still subscribed');
    await bob.unsubscribeResource({ uri: 'two+mem://shared' });
    assert.deepEqual(two.seen.unsubscribed, ['mem://shared']);
  });

  it('prompts and completion: namespaced on a clash, routed by prompt name or template', async () => {
    const names = (await alice.listPrompts()).prompts.map((p) => p.name).sort();
    assert.deepEqual(names, ['one__greet', 'one_prompt', 'two__greet', 'two_prompt']);
    const got = await alice.getPrompt({ name: 'two__greet' });
    assert.deepEqual(got.messages[0]?.content, { type: 'text', text: 'two:greet' });
    const c = await alice.complete({
      ref: { type: 'ref/prompt', name: 'one__greet' },
      argument: { name: 'a', value: 'x' },
    });
    assert.deepEqual(c.completion.values, ['one-x']);
    const t = await alice.complete({
      ref: { type: 'ref/resource', uri: 'two://items/{id}' },
      argument: { name: 'id', value: '4' },
    });
    assert.deepEqual(t.completion.values, ['two-4']);
    assert.deepEqual([one.seen.completed, two.seen.completed], [['greet'], ['two://items/{id}']]);
  });

  it('logging and progress: the level goes upstream; log messages and progress reach the caller alone', async () => {
    const logs: Record<string, string[]> = { alice: [], bob: [] };
    alice.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.alice!.push(String(n.params.data)));
    bob.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.bob!.push(String(n.params.data)));
    await alice.setLoggingLevel('error');
    assert.deepEqual([one.seen.levels, two.seen.levels], [['error'], ['error']]);
    const progress: number[] = [];
    const r = await alice.request(
      { method: 'tools/call', params: { name: 'one__work', arguments: {} } },
      CallToolResultSchema,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    assert.equal(r.content[0]?.type === 'text' && r.content[0].text, 'worked');
    assert.deepEqual(progress, [1, 2]);
    assert.deepEqual(logs, { alice: ['e1', 'e2'], bob: [] });
  });

  it('sampling, elicitation and roots of an upstream reach the client whose call is in flight', async () => {
    // At the same time, through different upstreams: each upstream's requests go to its own caller.
    const [a, b] = (await Promise.all([
      alice.callTool({ name: 'one__ask', arguments: {} }),
      bob.callTool({ name: 'two__ask', arguments: {} }),
    ])) as [Text, Text];
    assert.equal(a.content[0]?.text, 'alice says hi|decline|file:///alice');
    assert.equal(b.content[0]?.text, 'bob says hi|decline|file:///bob');
  });

  it("an upstream's list_changed is followed: the new tool is listed, callable, and clients are told", async () => {
    let told = 0;
    alice.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    await one.addTool('added');
    await until(() => told > 0);
    assert.equal(told, 1);
    assert.ok((await alice.listTools()).tools.some((t) => t.name === 'added'));
    assert.equal(((await alice.callTool({ name: 'added', arguments: {} })) as Text).content[0]?.text, 'one ran added');
  });
});
