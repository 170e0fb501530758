import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createClaudeAgent, interlockRun, type ClaudeAgent } from '../../../src/claude-agent-sdk.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';
import {
  startFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicBlock,
  type FakeAnthropicRequest,
} from '../../../src/testing/index.ts';

const refundShape = { orderId: z.string(), amount: z.number().positive() };
const SERVER = 'shop';
let seq = 0;

type Block = { type?: string; text?: string };

/** The text of the last user message, without the reminders Claude Code adds to it. */
function lastUserText(req: FakeAnthropicRequest): { text?: string; results: boolean } {
  // Claude Code may add a system message after the conversation (its environment): read past it.
  const last = req.messages.filter((m) => m.role === 'user' || m.role === 'assistant').at(-1);
  if (!last || last.role !== 'user') return { results: false };
  const blocks: Block[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : (last.content as Block[]);
  if (blocks.some((b) => b.type === 'tool_result')) return { results: true };
  const texts = blocks.filter((b) => b.type === 'text' && b.text && !b.text.startsWith('<system-reminder>'));
  return { text: texts.at(-1)?.text, results: false };
}

/**
 * The conformance model as a Messages API: on a user message, the world's plan (as calls of the
 * in-process tools); on Interlock's resume message, the approved calls again, as a model told so
 * would; after tool results, a text.
 */
export function conformanceResponder(world: ConformanceWorld) {
  return (req: FakeAnthropicRequest): FakeAnthropicBlock[] => {
    if (process.env.CF_DEBUG) console.error(JSON.stringify(req.messages).slice(0, 1500));
    const { text, results } = lastUserText(req);
    if (!results && text !== undefined) {
      const again = [...text.matchAll(/^- (\S+) (\{.*\}): approved\./gm)].map((m): FakeAnthropicBlock => ({
        type: 'tool_use',
        id: `toolu_${++seq}${Date.now().toString(36)}`,
        name: m[1]!,
        input: JSON.parse(m[2]!) as Record<string, unknown>,
      }));
      const calls = text.startsWith('Interlock:')
        ? again
        : world.plan(text).map((c): FakeAnthropicBlock => ({
            type: 'tool_use',
            id: c.id,
            name: `mcp__${SERVER}__${c.tool}`,
            input: c.args,
          }));
      if (calls.length) return calls;
    }
    world.afterTools();
    return [{ type: 'text', text: 'Done.' }];
  };
}

/** The world's tools as the SDK's in-process tools. */
export function worldTools(world: ConformanceWorld) {
  return [
    tool('issue_refund', 'Refund an order', refundShape, async (args, extra) => ({
      content: [
        { type: 'text' as const, text: JSON.stringify(await world.refund(args, interlockRun(extra).idempotencyKey)) },
      ],
    })),
    tool('lookup_order', 'Look up an order', { orderId: z.string() }, async (args) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(world.lookup(args)) }],
    })),
  ];
}

/** One fake Messages API and Claude Code home per world, closed when the world's process dies or the file ends. */
async function apiOf(world: ConformanceWorld): Promise<FakeAnthropic> {
  const api = await startFakeAnthropic(conformanceResponder(world));
  world.onKill(() => api.close());
  return api;
}

const cwd = mkdtempSync(join(tmpdir(), 'interlock-claude-cwd-'));

/** The Claude Agent SDK adapter, as docs/adapters/claude-agent-sdk.md wires it. */
export const claudeAgentSdkDriver: IntegrationDriver = {
  name: 'claude-agent-sdk',
  // A failed turn saves nothing: send the message again.
  retry: 'invoke',
  async create(world) {
    const api = await apiOf(world);
    const aborts = new Set<AbortController>();
    world.onKill(() => aborts.forEach((a) => a.abort()));
    return createClaudeAgent({
      name: 'cf-claude',
      interlock: world.interlock,
      query: (params) => {
        const abortController = new AbortController();
        aborts.add(abortController);
        return query({ ...params, options: { ...params.options, abortController } });
      },
      createSdkMcpServer,
      tools: worldTools(world),
      server: SERVER,
      schemas: { issue_refund: z.object(refundShape) },
      options: { cwd, env: api.env(), settingSources: [] },
    });
  },
  // The app's query runs its own options: its own server with the tools, no Interlock hook.
  async miswired(world) {
    const api = await apiOf(world);
    const tools = worldTools(world);
    const agent: ClaudeAgent = createClaudeAgent({
      name: 'cf-claude',
      interlock: world.interlock,
      query: ({ prompt }) =>
        query({
          prompt,
          options: {
            cwd,
            env: api.env(),
            settingSources: [],
            mcpServers: { [SERVER]: createSdkMcpServer({ name: SERVER, tools }) },
          },
        }),
      createSdkMcpServer,
      tools,
      server: SERVER,
    });
    return agent;
  },
};
