import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RunnerResult, ThreadRunner } from '../../../src/engine/index.ts';
import { createMcpGateway } from '../../../src/mcp.ts';
import type { ConformanceCall, ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';
import { connectInMemory } from '../mcp-upstream.ts';

type Result = { content: Array<{ text?: string }>; structuredContent?: { status?: string; requestId?: string } };

/** The upstream MCP server whose tools the gateway serves: the refund reads Interlock's key from `_meta`. */
function upstream(world: ConformanceWorld) {
  const server = new McpServer({ name: 'payments', version: '1' });
  server.registerTool(
    'issue_refund',
    { description: 'Refund an order', inputSchema: { orderId: z.string(), amount: z.number().positive() } },
    async (args, extra) => {
      const key = (extra._meta as { idempotencyKey?: string } | undefined)?.idempotencyKey;
      return { content: [{ type: 'text' as const, text: JSON.stringify(await world.refund(args, key)) }] };
    },
  );
  server.registerTool(
    'lookup_order',
    { description: 'Look up an order', inputSchema: { orderId: z.string() }, annotations: { readOnlyHint: true } },
    (args) => ({ content: [{ type: 'text' as const, text: JSON.stringify(world.lookup(args)) }] }),
  );
  return server;
}

/**
 * The MCP gateway, as an MCP client (the agent) uses it: it calls the tools a step proposes, all at
 * once; a call answered "awaiting approval" is called again with the same arguments and call id on
 * resume. One principal per conversation; the call id (`_meta.callId`) is stable for the same call of
 * the same message, as a client that retries sends it.
 */
export const mcpDriver: IntegrationDriver = {
  name: 'mcp-gateway',
  // A client retries a call by making it again with the same call id.
  retry: 'invoke',
  // The client's own copy of a call it waits on: a client that changes it calls for another action.
  alter(world, threadId, from, to) {
    const outstanding = world.shared.get('mcp-client') as
      Map<string, { calls: Array<{ args: { amount?: number } }> }> | undefined;
    for (const c of outstanding?.get(threadId)?.calls ?? []) if (c.args.amount === from) c.args.amount = to;
    return Promise.resolve();
  },
  async create(world) {
    const payments = await connectInMemory(upstream(world), 'gateway');
    const { newServer } = await createMcpGateway({
      interlock: world.interlock,
      name: 'cf-mcp',
      upstreams: { payments },
      holdMs: 30,
      principal: (extra) => String((extra as { _meta?: { principal?: string } })._meta?.principal ?? 'local'),
    });
    const client = await connectInMemory(newServer(), 'agent');
    // The gateway process's connections die with it (its call to the upstream, the client's to it).
    world.onKill(async () => {
      await payments.close();
    });
    // The client's own memory of the calls it still waits on: it outlives a gateway process.
    type Outstanding = Map<string, { principal: string; calls: Array<ConformanceCall & { callId: string }> }>;
    const outstanding = (world.shared.get('mcp-client') as Outstanding | undefined) ?? (new Map() as Outstanding);
    world.shared.set('mcp-client', outstanding);

    async function step(threadId: string, principal: string, calls: Array<ConformanceCall & { callId: string }>) {
      const results = await Promise.all(
        calls.map(
          (c) =>
            client.callTool(
              { name: c.tool, arguments: c.args, _meta: { principal, callId: c.callId } },
              undefined,
              // A call whose gateway process died is given up after a while, as a client does.
              { timeout: 3000 },
            ) as Promise<Result>,
        ),
      );
      const waiting = calls.filter((_, i) => results[i]!.structuredContent?.status === 'awaiting_approval');
      const requests = results.flatMap((r) =>
        r.structuredContent?.status === 'awaiting_approval' ? [r.structuredContent.requestId!] : [],
      );
      if (waiting.length) {
        outstanding.set(threadId, { principal, calls: waiting });
        const reqs = await Promise.all(requests.map((id) => world.interlock.getRequestOrThrow(id)));
        return {
          threadId,
          stopReason: 'interrupt',
          text: '',
          interrupts: reqs.map((r) => ({
            id: r.id,
            name: r.tool,
            tier: r.tier,
            role: r.role,
            toolCallId: r.toolCallId,
            message: r.reason,
          })),
        } satisfies RunnerResult;
      }
      outstanding.delete(threadId);
      world.afterTools();
      return { threadId, stopReason: 'end_turn', text: 'Done.', interrupts: [] } satisfies RunnerResult;
    }

    const runner: ThreadRunner = {
      name: 'cf-mcp',
      version: '1',
      async invoke(text, o) {
        const principal = o?.threadId ?? 'local';
        const calls = world.plan(text).map((c, i) => ({
          ...c,
          // An id the plan gave on purpose (a collision under test) is sent as it is.
          callId: c.id.startsWith('call_') ? `${principal}:${text}:${i}` : c.id,
        }));
        return step(`mcp:cf-mcp:${principal}`, principal, calls);
      },
      async resume(threadId) {
        const open = outstanding.get(threadId);
        if (!open) return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
        return step(threadId, open.principal, open.calls);
      },
      abort: async () => undefined,
    };
    return runner;
  },
};
