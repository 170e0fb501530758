import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createClaudeAgent, type ClaudeAgent } from '../../src/claude-agent-sdk.ts';
import type { Interlock } from '../../src/index.ts';
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicBlock } from '../../src/testing/index.ts';

type Block = { type?: string; text?: string };

/**
 * The order-support agent on the Claude Agent SDK against a local Messages API: `refund <order> <amount>`
 * proposes the refund; Interlock's resume message makes the approved call again; after results, a text.
 */
export async function claudeSupport(
  il: Interlock,
  runs: Array<{ orderId: string; amount: number }>,
): Promise<{ agent: ClaudeAgent; api: FakeAnthropic }> {
  let n = 0;
  const api = await startFakeAnthropic((req): FakeAnthropicBlock[] => {
    const last = req.messages.filter((m) => m.role !== 'system').at(-1)!;
    const blocks: Block[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : (last.content as Block[]);
    if (blocks.some((b) => b.type === 'tool_result')) return [{ type: 'text', text: 'Done.' }];
    const text = blocks.filter((b) => b.type === 'text' && !b.text?.startsWith('<system-reminder>')).at(-1)?.text ?? '';
    const again = /^- (\S+) (\{.*\}): approved\./m.exec(text);
    if (again)
      return [
        {
          type: 'tool_use',
          id: `toolu_${++n}`,
          name: again[1]!,
          input: JSON.parse(again[2]!) as Record<string, unknown>,
        },
      ];
    const [, orderId = 'A-1', amount = '0'] = /refund (\S+) (\d+)/.exec(text) ?? [];
    return [
      {
        type: 'tool_use',
        id: `toolu_${++n}`,
        name: 'mcp__shop__issue_refund',
        input: { orderId, amount: Number(amount) },
      },
    ];
  });
  const agent = createClaudeAgent({
    name: 'support-claude',
    interlock: il,
    query: (p) => query(p),
    createSdkMcpServer,
    server: 'shop',
    tools: [
      tool('issue_refund', 'Refund an order', { orderId: z.string(), amount: z.number() }, async (args) => {
        runs.push(args);
        return { content: [{ type: 'text', text: `refunded ${args.amount}` }] };
      }),
    ],
    options: { cwd: mkdtempSync(join(tmpdir(), 'interlock-claude-bench-')), env: api.env(), settingSources: [] },
  });
  return { agent, api };
}
