// A Strands Agents (TypeScript) agent behind Interlock: the Strands docs' approval hook — ask before
// delete_files runs, cancel the tool when the answer is no — with the question answered by a reviewer
// in Interlock instead of input(). The app runs the agent until Interlock's hook raises the SDK's
// interrupt; an operator approves through the engine (as the CLI and the web UI do); a fresh process —
// after a restart, say — resumes from the snapshot Interlock stored (the agent's session manager
// keeps a copy too), and the files are deleted once. A second request, rejected, cancels the tool.
// Run: node examples/adapters/strands.ts
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  FileStorage,
  Model,
  SessionManager,
  tool,
  type Message,
  type ModelStreamEvent,
} from '@strands-agents/sdk';
import { z } from 'zod';
import { createInterlock, openStore, type PolicyConfig } from '../../src/index.ts';
import { createStrandsAgent, interlockRun } from '../../src/strands.ts';

const policy: PolicyConfig = {
  tools: {
    delete_files: [{ id: 'delete', tier: 'approve', role: 'operator', reason: 'files are deleted for good' }],
  },
};

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-strands-'))] = process.argv.slice(2);
const deleted = join(dir, 'deleted.jsonl');

/**
 * Any model provider works here (Bedrock, Anthropic, OpenAI…); this one runs offline: it asks to
 * delete the files the user names, then reports what the tool said.
 */
class OfflineModel extends Model<{ modelId?: string }> {
  updateConfig(): void {}
  getConfig() {
    return { modelId: 'offline' };
  }
  async *stream(messages: Message[]): AsyncGenerator<ModelStreamEvent> {
    const last = messages.at(-1)!;
    const result = last.content.find((b) => b.type === 'toolResultBlock');
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if (result) {
      const said = result.content.map((c) => (c.type === 'textBlock' ? c.text : JSON.stringify(c.toJSON()))).join('');
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: `The tool said: ${said}` } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
      return;
    }
    const text = last.content.map((b) => (b.type === 'textBlock' ? b.text : '')).join('');
    const paths = text.split(/\s+/).filter((w) => w.startsWith('/'));
    yield {
      type: 'modelContentBlockStartEvent',
      start: { type: 'toolUseStart', name: 'delete_files', toolUseId: 'tooluse_1' },
    };
    yield {
      type: 'modelContentBlockDeltaEvent',
      delta: { type: 'toolUseInputDelta', input: JSON.stringify({ paths }) },
    };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
  }
}

const deleteFiles = tool({
  name: 'delete_files',
  description: 'Delete files',
  inputSchema: z.object({ paths: z.array(z.string()) }),
  callback: ({ paths }, context) => {
    // The key binds the deletion to the approved request: a retry after a crash does not repeat it.
    appendFileSync(deleted, JSON.stringify({ key: interlockRun(context).idempotencyKey, paths }) + '\n');
    return `deleted ${paths.join(', ')}`;
  },
});

const agentOf = (interlock: ReturnType<typeof createInterlock>) =>
  createStrandsAgent({
    name: 'ops',
    interlock,
    // A new Agent per run; its session manager keeps a copy, Interlock's checkpoint is what a run starts from.
    agent: (threadId) =>
      new Agent({
        model: new OfflineModel(),
        tools: [deleteFiles],
        printer: false,
        sessionManager: new SessionManager({
          sessionId: threadId,
          storage: { snapshot: new FileStorage(join(dir, 'sessions')) },
        }),
      }),
  });
const store = await openStore(join(dir, 'interlock.db'));
const interlock = createInterlock({ store, policy });
const ops = agentOf(interlock);
const operator = { id: 'olga', roles: ['operator'] };

if (role === 'resume') {
  const done = await ops.resume('thr_strands');
  console.log(`resumed in process ${process.pid}: ${done.stopReason} - ${done.text}`);
} else {
  const first = await ops.invoke('Delete /tmp/old.log /tmp/cache.bin', { threadId: 'thr_strands' });
  console.log(`app: ${first.stopReason} - ${first.result?.interrupts?.[0]?.id} - ${first.interrupts[0]?.message}`);
  const req = await interlock.getRequestOrThrow(first.interrupts[0]!.id);
  const decided = await interlock.decide(
    req.id,
    { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
    operator,
  );
  console.log(`reviewer: ${decided.outcome} request ${req.id} for call ${req.toolCallId}`);
  await store.close();
  process.stdout.write(execFileSync(process.execPath, [import.meta.filename, 'resume', dir], { encoding: 'utf8' }));

  // The docs' "no" answer: a reviewer rejects, and the tool is cancelled with the reviewer's message.
  const store2 = await openStore(join(dir, 'interlock.db'));
  const il2 = createInterlock({ store: store2, policy });
  const ops2 = agentOf(il2);
  const again = await ops2.invoke('Delete /etc/passwd', { threadId: 'thr_strands_2' });
  const req2 = await il2.getRequestOrThrow(again.interrupts[0]!.id);
  await il2.decide(
    req2.id,
    { type: 'reject', expectedVersion: req2.version, actionHash: req2.actionHash, message: 'not that one' },
    operator,
  );
  const cancelled = await ops2.resume('thr_strands_2');
  console.log(`rejected: ${cancelled.stopReason} - ${cancelled.text}`);
  const runs = existsSync(deleted) ? readFileSync(deleted, 'utf8').trim().split('\n') : [];
  console.log(`deletions: ${runs.length}`);
  await store2.close();
  if (runs.length !== 1) process.exit(1);
}
await store.close().catch(() => undefined);
