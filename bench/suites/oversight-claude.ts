/**
 * The Claude Agent SDK in "Cost of oversight, per adapter": `query` with the SDK's own approval and
 * the CLI's own persistence, against `createClaudeAgent` on Interlock's store. Both run the bundled
 * Claude Code CLI (a process per `query`) against a local fake Messages API (`startFakeAnthropic`)
 * with the same script, and the same refund tool served in-process (`createSdkMcpServer`).
 *
 * "Pause for a person and resume later" with the SDK alone: `canUseTool` can only allow or deny
 * while the CLI process waits on it, so a decision taken later, in another process, needs a
 * `PreToolUse` hook answering `permissionDecision: 'defer'` (print mode, CLI 2.1.89+). The CLI then
 * ends the turn (`terminal_reason: 'tool_deferred'`, the call as `deferred_tool_use`: id, name,
 * input) and leaves the pending call in the session's transcript, a JSONL file the CLI keeps under
 * its config directory (appended without fsync: strace shows fsync only on its settings file).
 * Resuming the session (`resume: sessionId`, no prompt) fires the hook again for that call; allowed,
 * the refund runs and the model answers. So the application stores in its own table
 * (bench/lib/app-store.ts):
 * - per thread, the CLI session it continues (written when the thread's session begins or changes):
 *   without it no later turn, in whichever process, can `resume` the conversation;
 * - while a refund waits, the deferred call and its session (the `paused` row): the reviewer's screen
 *   shows that call, and the resume needs the session to continue and the call the approval is for —
 *   the hook allows exactly that call id with exactly those arguments, and defers any other.
 * The transcript stays with the CLI on the disk of the machine that ran the turn, so the resume must
 * run there too (the SDK's `sessionStore` would move it elsewhere; Interlock's adapter uses it to keep
 * the transcript with the thread).
 */
import {
  createSdkMcpServer,
  query,
  tool,
  type HookCallback,
  type SDKDeferredToolUse,
  type SDKResultMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicBlock } from '../../src/testing/index.ts';
import { claudeSupport } from '../../test/support/claude-support.ts';
import { postgresAppStore, sqliteAppStore } from '../lib/app-store.ts';
import type { Scratch } from '../lib/backends.ts';
import { z } from '../lib/root-packages.ts';
import {
  expect,
  interlockSide,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
} from '../lib/oversight-agent.ts';

const REFUND = 'mcp__shop__issue_refund';
type Block = { type?: string; text?: string };
type Refund = { orderId: string; amount: number };
/** A thread's row in the app's table: the CLI session the thread continues. */
type SessionRow = { sessionId: string };
/** The app's `paused` row: a refund the hook deferred, and the session to resume once it is approved. */
type Deferred = { sessionId: string; call: SDKDeferredToolUse };
type Success = Extract<SDKResultMessage, { subtype: 'success' }>;

/**
 * test/support/claude-support.ts's scripted model, without its Interlock resume branch: `refund
 * <order> <amount>` proposes the refund; after a tool result, a text.
 */
function fakeModel(): Promise<FakeAnthropic> {
  let n = 0;
  return startFakeAnthropic((req): FakeAnthropicBlock[] => {
    const last = req.messages.filter((m) => m.role !== 'system').at(-1)!;
    const blocks: Block[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : (last.content as Block[]);
    if (blocks.some((b) => b.type === 'tool_result')) return [{ type: 'text', text: 'Done.' }];
    const text = blocks.filter((b) => b.type === 'text' && !b.text?.startsWith('<system-reminder>')).at(-1)?.text ?? '';
    const [, orderId = 'A-1', amount = '0'] = /refund (\S+) (\d+)/.exec(text) ?? [];
    return [{ type: 'tool_use', id: `toolu_${++n}`, name: REFUND, input: { orderId, amount: Number(amount) } }];
  });
}

/**
 * The app's approval, as a `PreToolUse` hook on the refund: up to $500 it runs; above, only the call
 * a reviewer approved (same id, same arguments) runs, and any other is deferred to a person.
 */
function refundGate(approved?: SDKDeferredToolUse): HookCallback {
  return async (input) => {
    if (input.hook_event_name !== 'PreToolUse') return {};
    const args = input.tool_input as Refund;
    const ok =
      args.amount <= 500 || (approved?.id === input.tool_use_id && isDeepStrictEqual(approved.input, input.tool_input));
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: ok ? 'allow' : 'defer',
        permissionDecisionReason: ok ? 'within policy, or approved' : 'refunds over $500 wait for a reviewer',
      },
    };
  };
}

/** A new server of the refund tool: an MCP server instance serves one CLI process at a time. */
function refundServer(runs: Refund[]) {
  return createSdkMcpServer({
    name: 'shop',
    tools: [
      tool('issue_refund', 'Refund an order', { orderId: z.string(), amount: z.number() }, async (args) => {
        runs.push(args);
        return { content: [{ type: 'text', text: `refunded ${args.amount}` }] };
      }),
    ],
  });
}

async function own(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const app =
    backend === 'sqlite' ? sqliteAppStore(scratch, 'claude-own') : await postgresAppStore(scratch, 'claude_own');
  const api = await fakeModel();
  const runs: Refund[] = [];
  const cwd = mkdtempSync(join(tmpdir(), 'interlock-claude-own-'));
  /**
   * One `query` (one CLI process), to its last result. `prompt` '' on a resume sends no user message
   * (`claude -p --resume <id>`): the CLI takes up the deferred call. It first reports that call
   * unavailable (`tool_deferred_unavailable`: the in-process server is not connected yet), then
   * connects it, fires the hook again and runs the turn to a second, final result.
   */
  async function run(prompt: string, sessionId: string | undefined, approved?: SDKDeferredToolUse): Promise<Success> {
    let result: SDKResultMessage | undefined;
    const options = {
      cwd,
      env: api.env(),
      settingSources: [],
      mcpServers: { shop: refundServer(runs) },
      hooks: { PreToolUse: [{ matcher: REFUND, hooks: [refundGate(approved)] }] },
      ...(sessionId ? { resume: sessionId } : {}),
    };
    for await (const m of query({ prompt, options })) if (m.type === 'result') result = m;
    expect(
      result?.subtype === 'success' && !result.is_error,
      `Claude Agent SDK turn failed: ${result?.subtype} ${result?.stop_reason}`,
    );
    return result as Success;
  }
  /** The thread's rows (its sessions, latest last), and the row to add when a turn ran in a new one. */
  async function sessionOf(threadId: string) {
    const rows = (await app.load(threadId)) as SessionRow[];
    const current = rows.at(-1)?.sessionId;
    return { current, from: rows.length, add: (id: string) => (id === current ? [] : [{ sessionId: id }]) };
  }
  return {
    label: "Claude Agent SDK · PreToolUse defer + the CLI's session (its id in the app's table)",
    async auto(threadId, input) {
      const s = await sessionOf(threadId);
      const r = await run(input, s.current);
      expect(r.terminal_reason === 'completed', `Claude Agent SDK auto turn on ${threadId} ended ${r.terminal_reason}`);
      // The CLI keeps the transcript; the app writes only when the thread's session is new.
      const add = s.add(r.session_id);
      if (add.length) await app.save(threadId, s.from, add);
    },
    async cycle(threadId, input) {
      const s = await sessionOf(threadId);
      const paused = await run(input, s.current);
      const call = paused.deferred_tool_use;
      expect(
        paused.terminal_reason === 'tool_deferred' && call?.name === REFUND,
        `Claude Agent SDK gated turn on ${threadId} was not deferred (${paused.terminal_reason})`,
      );
      // The pause: the deferred call and its session, in the app's table (the reviewer reads it there).
      const held: Deferred = { sessionId: paused.session_id, call: call! };
      await app.save(threadId, s.from, s.add(paused.session_id), JSON.stringify(held));
      // The reviewer approves: the app loads the deferred call, resumes its session with the hook
      // allowing that call, and clears the pause once the turn has ended.
      const saved = await app.paused(threadId);
      expect(saved !== undefined, `Claude Agent SDK deferred call of ${threadId} was not stored`);
      const d = JSON.parse(saved!) as Deferred;
      const done = await run('', d.sessionId, d.call);
      expect(
        done.terminal_reason === 'completed',
        `Claude Agent SDK resume on ${threadId} ended ${done.terminal_reason}`,
      );
      const after = await sessionOf(threadId);
      await app.save(threadId, after.from, after.add(done.session_id), null);
    },
    runs: () => runs.length,
    commits: () => app.commits(),
    async close() {
      await app.close();
      await api.close();
      // The CLI's sessions live in the fake's HOME: a long run leaves thousands of transcripts.
      rmSync(api.env().HOME!, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

async function withInterlock(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const { il, store } = await oversightInterlock(scratch, backend, 'claude-interlock');
  const runs: Refund[] = [];
  const { agent, api } = await claudeSupport(il, runs);
  return interlockSide({
    label: 'Claude Agent SDK · createClaudeAgent',
    framework: 'Claude Agent SDK',
    il,
    store,
    agent,
    runs: () => runs.length,
    async close() {
      await api.close();
      rmSync(api.env().HOME!, { recursive: true, force: true });
    },
  });
}

/** The Claude Agent SDK pair on `backend`. */
export const claudePair = pairOf('Claude Agent SDK', own, withInterlock);
