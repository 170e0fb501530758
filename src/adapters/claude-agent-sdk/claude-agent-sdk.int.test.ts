import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import type { PolicyConfig } from '../../core/index.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import { createClaudeAgent, interlockRun, type ClaudeAgentOptions } from '../../claude-agent-sdk.ts';
import { allBackends, startFakeAnthropic, type FakeAnthropic, type FakeAnthropicBlock } from '../../testing/index.ts';

const policy: PolicyConfig = {
  tools: {
    Bash: [{ id: 'shell', tier: 'approve', role: 'supervisor', reason: 'a shell command' }],
    Write: [{ id: 'notes', tier: 'auto', reason: 'notes in the work directory' }],
    issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }],
  },
};
const sam = { id: 'sam', roles: ['supervisor'] };

/** The model: on a user message, `script(text)`; after tool results, what they said. */
function scripted(script: (text: string) => FakeAnthropicBlock[]) {
  return (req: { messages: Array<{ role: string; content: unknown }> }): FakeAnthropicBlock[] => {
    const last = req.messages.filter((m) => m.role !== 'system').at(-1)!;
    const blocks = Array.isArray(last.content)
      ? (last.content as Array<{ type: string; text?: string; content?: unknown }>)
      : [];
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length) return [{ type: 'text', text: `Tools said: ${JSON.stringify(results.map((r) => r.content))}` }];
    const text = blocks.filter((b) => b.type === 'text' && !b.text?.startsWith('<system-reminder>')).at(-1)?.text ?? '';
    return script(text);
  };
}

const bash = (id: string, command: string): FakeAnthropicBlock => ({
  type: 'tool_use',
  id,
  name: 'Bash',
  input: { command, description: 'write a marker' },
});
const refund = (id: string, amount: number): FakeAnthropicBlock => ({
  type: 'tool_use',
  id,
  name: 'mcp__shop__issue_refund',
  input: { amount },
});

describe('Claude Agent SDK adapter', () => {
  const backend = allBackends()[0]!;
  let il: Interlock;
  let api: FakeAnthropic;
  let script: (text: string) => FakeAnthropicBlock[] = () => [];
  const ran: Array<{ amount: number; key: string }> = [];
  const cwd = mkdtempSync(join(tmpdir(), 'interlock-claude-test-'));
  before(async () => {
    il = createInterlock({ store: await backend.create(), policy });
    api = await startFakeAnthropic(scripted((t) => script(t)));
  });
  after(async () => {
    await api.close();
    await backend.destroy();
  });
  const agent = (extra: Partial<ClaudeAgentOptions> = {}) =>
    createClaudeAgent({
      interlock: il,
      query: (p) => query(p),
      createSdkMcpServer,
      server: 'shop',
      tools: [
        tool('issue_refund', 'Refund', { amount: z.number() }, async ({ amount }, extra) => {
          ran.push({ amount, key: interlockRun(extra).idempotencyKey });
          return { content: [{ type: 'text', text: `refunded ${amount}` }] };
        }),
      ],
      options: { cwd, env: api.env(), settingSources: [] },
      ...extra,
    });
  const approve = async (id: string) => {
    const req = await il.getRequestOrThrow(id);
    await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
  };

  it('refuses, when built, options that would let calls past Interlock, saying what to do', () => {
    const cases: Array<[Partial<ClaudeAgentOptions>, RegExp]> = [
      [{ options: { permissionMode: 'bypassPermissions' } }, /bypassPermissions.*must not be used with Interlock/],
      [{ options: { allowDangerouslySkipPermissions: true } }, /bypassPermissions/],
      [
        { options: { canUseTool: async () => ({ behavior: 'allow' }) } as ClaudeAgentOptions['options'] },
        /answers canUseTool itself/,
      ],
      [{ createSdkMcpServer: undefined }, /"tools" need "createSdkMcpServer"/],
    ];
    for (const [o, message] of cases)
      assert.throws(
        () => agent(o),
        (e: Error & { code?: string }) => e.code === 'invalid_config' && message.test(e.message),
      );
  });

  it('a built-in tool: Bash runs only after approval, once; the same command again is a new call', async () => {
    const marker = join(cwd, 'marker.txt');
    script = (text) =>
      text.startsWith('Interlock:')
        ? [bash('toolu_b2', `echo ran >> ${marker}`), bash('toolu_b3', `echo ran >> ${marker}`)]
        : [bash('toolu_b1', `echo ran >> ${marker}`)];
    const a = agent();
    const r = await a.invoke('write the marker', { threadId: 'c-bash' });
    assert.equal(r.stopReason, 'interrupt');
    assert.equal(existsSync(marker), false, 'nothing ran before the decision');
    await approve(r.interrupts[0]!.id);
    const done = await a.resume('c-bash');
    // The model made the approved command twice: the first ran, the second is a call of its own.
    assert.equal(readFileSync(marker, 'utf8'), 'ran\n');
    assert.equal(done.stopReason, 'interrupt');
    assert.equal((await il.getRequestOrThrow(r.interrupts[0]!.id)).status, 'executed');
    assert.notEqual(done.interrupts[0]!.id, r.interrupts[0]!.id);
  });

  it('a built-in tool the policy lets run: Claude Code runs it, and the audit log records it', async () => {
    const note = join(cwd, 'note.txt');
    script = () => [{ type: 'tool_use', id: 'toolu_w1', name: 'Write', input: { file_path: note, content: 'hello' } }];
    const r = await agent().invoke('write a note', { threadId: 'c-write' });
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(readFileSync(note, 'utf8'), 'hello');
    const events = await il.audit.listAudit({ threadId: 'c-write' });
    assert.ok(events.some((e) => e.type === 'auto_executed' && (e.payload as { tool?: string }).tool === 'Write'));
  });

  it("reject: nothing runs, and Claude reads the reviewer's message", async () => {
    script = (text) =>
      text.startsWith('Interlock:') ? [{ type: 'text', text: 'Understood.' }] : [refund('toolu_r1', 43)];
    const a = agent();
    const r = await a.invoke('refund 43', { threadId: 'c-reject' });
    const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
    const d = {
      type: 'reject' as const,
      message: 'order never paid',
      expectedVersion: req.version,
      actionHash: req.actionHash,
    };
    await il.decide(req.id, d, sam);
    assert.equal((await a.resume('c-reject')).stopReason, 'end_turn');
    assert.equal(
      ran.some((x) => x.amount === 43),
      false,
    );
    assert.match(
      JSON.stringify(api.requests.at(-1)!.messages),
      /not run\. A reviewer rejected this action.*order never paid/,
    );
  });

  it("settings rules: an ask rule is answered from the hook's decision, a deny rule still wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-claude-settings-'));
    mkdirSync(join(dir, '.claude'));
    // Claude Code's file rules are Edit(...) rules, relative to the project; they cover Write as well.
    const permissions = { ask: ['Edit(asked.txt)'], deny: ['Edit(denied.txt)'] };
    writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify({ permissions }));
    script = () => [
      { type: 'tool_use', id: 'toolu_s1', name: 'Write', input: { file_path: join(dir, 'asked.txt'), content: 'a' } },
      { type: 'tool_use', id: 'toolu_s2', name: 'Write', input: { file_path: join(dir, 'denied.txt'), content: 'd' } },
    ];
    const a = agent({ options: { cwd: dir, env: api.env(), settingSources: ['project'] } });
    assert.equal((await a.invoke('write two notes', { threadId: 'c-settings' })).stopReason, 'end_turn');
    assert.equal(readFileSync(join(dir, 'asked.txt'), 'utf8'), 'a');
    assert.equal(existsSync(join(dir, 'denied.txt')), false);
  });

  it('turnTimeoutMs: a turn that never ends fails, saves nothing and gives the thread back', async () => {
    let answer: () => void = () => undefined;
    const silent = await startFakeAnthropic(
      () => new Promise((r) => (answer = () => r([{ type: 'text', text: 'late' }]))),
    );
    const a = agent({ turnTimeoutMs: 1500, options: { cwd, env: silent.env(), settingSources: [] } });
    await assert.rejects(a.invoke('hello', { threadId: 'c-timeout' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'internal');
      assert.match(e.message, /no result within 1500 ms.*run it again/);
      return true;
    });
    answer();
    await silent.close();
    assert.deepEqual(await il.threads.listMessages('c-timeout'), []);
    // The lease is free: another run of the thread is not busy.
    script = () => [{ type: 'text', text: 'Hi.' }];
    assert.equal((await agent().invoke('hello', { threadId: 'c-timeout' })).stopReason, 'end_turn');
  });

  it('holdMs: the hook holds the call while a reviewer decides, and the turn goes on', async () => {
    script = () => [refund('toolu_h1', 40)];
    const decider = (async () => {
      for (let i = 0; i < 2000; i++) {
        const open = (await il.listRequests({ threadId: 'c-hold', status: 'pending' })).items;
        if (open[0]) return approve(open[0].id);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the held call opened no request');
    })();
    const r = await agent({ holdMs: 60_000 }).invoke('refund 40', { threadId: 'c-hold' });
    await decider;
    assert.equal(r.stopReason, 'end_turn');
    assert.match(r.text, /refunded 40/);
    assert.deepEqual(
      ran.filter((x) => x.amount === 40).map((x) => x.amount),
      [40],
    );
  });

  it('holdMs without a decision: the turn ends waiting, and resume runs the call once', async () => {
    script = (text) => (text.startsWith('Interlock:') ? [refund('toolu_w2', 41)] : [refund('toolu_w1', 41)]);
    const a = agent({ holdMs: 1 });
    const r = await a.invoke('refund 41', { threadId: 'c-hold-2' });
    assert.equal(r.stopReason, 'interrupt');
    assert.equal(r.interrupts.length, 1);
    await approve(r.interrupts[0]!.id);
    assert.equal((await a.resume('c-hold-2')).stopReason, 'end_turn');
    await a.resume('c-hold-2');
    assert.deepEqual(
      ran.filter((x) => x.amount === 41).map((x) => x.amount),
      [41],
    );
  });

  it('a session run in bypassPermissions by the query function fails closed: not_wired, nothing ran', async () => {
    script = () => [refund('toolu_x1', 42)];
    const a = agent({
      query: (p) =>
        query({
          ...p,
          // IS_SANDBOX: Claude Code refuses to skip permissions as root unless told it runs in a sandbox.
          options: {
            ...p.options,
            env: { ...p.options.env, IS_SANDBOX: '1' },
            permissionMode: 'bypassPermissions',
            allowDangerouslySkipPermissions: true,
          },
        }),
    });
    await assert.rejects(a.invoke('refund 42', { threadId: 'c-bypass' }), { code: 'not_wired' });
    assert.equal(
      ran.some((x) => x.amount === 42),
      false,
    );
  });
});
