import type { Options, SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { InterlockSystemError, type ApprovalRequest } from '../../core/index.ts';
import { interruptsOf, watchWiring, NotWiredError, type AdapterState, type ThreadRun } from '../core/index.ts';
import { toThreadMessages, toolsThatRan } from './messages.ts';
import type { ClaudeContext, ClaudeWaiting } from './context.ts';
import { interlockCanUseTool, interlockHook, type RunScope } from './scope.ts';
import { gatedServer, HOW, INTEGRATION } from './tools.ts';
import type { HeldCall } from './hold.ts';
import { turnTranscript, type SavedTranscript, type TurnTranscript } from './transcript.ts';
import type { ClaudeRunResult } from './types.ts';

/** The SDK session a thread continues and its transcript, kept in the thread's checkpoint. */
export function transcriptOf(state: AdapterState | undefined): SavedTranscript | undefined {
  const t = (state?.framework as { transcript?: SavedTranscript } | undefined)?.transcript;
  return t && typeof t.sessionId === 'string' && Array.isArray(t.main) ? t : undefined;
}

/** The SDK's options for one turn: yours, with Interlock's hook first, its `canUseTool`, your tools' gated server and the session. */
export function turnOptions(
  ctx: ClaudeContext,
  scope: RunScope,
  transcript: TurnTranscript,
  sessionId: string | undefined,
): Options {
  const base = ctx.o.options ?? {};
  const server = gatedServer(ctx.o, ctx.gate, ctx.originals, scope);
  return {
    ...base,
    hooks: {
      ...base.hooks,
      PreToolUse: [{ hooks: [interlockHook(ctx.hook, scope)] }, ...(base.hooks?.PreToolUse ?? [])],
      // Proof that the session runs with Interlock's hooks: a turn without it was started around them.
      UserPromptSubmit: [
        {
          hooks: [
            async () => {
              scope.wired = true;
              return {};
            },
          ],
        },
        ...(base.hooks?.UserPromptSubmit ?? []),
      ],
    },
    canUseTool: interlockCanUseTool(scope),
    ...(server ? { mcpServers: { ...base.mcpServers, [ctx.o.server ?? 'interlock']: server } } : {}),
    sessionStore: transcript.store,
    ...(sessionId ? { resume: sessionId } : {}),
  };
}

/** A turn that ended in an error (the model's API, the CLI): nothing of it is saved; run it again (code `internal`). */
export class ClaudeTurnError extends InterlockSystemError {
  constructor(threadId: string, result: SDKResultMessage | undefined, reason?: string) {
    const why = reason
      ? reason
      : !result
        ? 'the SDK ended without a result message'
        : 'result' in result && result.result
          ? result.result
          : ('errors' in result ? result.errors.join('; ') : '') || result.subtype;
    super(
      'internal',
      `Claude Agent SDK turn of thread ${threadId} failed: ${why}. Nothing of it was saved; run it again.`,
      {
        details: { threadId },
      },
    );
  }
}

/** One SDK turn over a held thread; fails closed when a tool call ran that never passed Interlock's hook. */
async function runTurn(
  ctx: ClaudeContext,
  threadId: string,
  prompt: string,
  scope: RunScope,
  saved: SavedTranscript | undefined,
): Promise<{
  messages: SDKMessage[];
  result: Extract<SDKResultMessage, { subtype: 'success' }>;
  transcript: SavedTranscript;
}> {
  const messages: SDKMessage[] = [];
  const transcript = turnTranscript(saved);
  let result: SDKResultMessage | undefined;
  const options = turnOptions(ctx, scope, transcript, saved?.sessionId);
  // A turn that never ends would hold the thread's lease for good: turnTimeoutMs aborts its process.
  const timeout = ctx.o.turnTimeoutMs;
  const abort = options.abortController ?? new AbortController();
  const timer = timeout ? setTimeout(() => abort.abort(), timeout) : undefined;
  await watchWiring(INTEGRATION, HOW, async () => {
    for await (const m of ctx.o.query({ prompt, options: { ...options, abortController: abort } })) {
      messages.push(m);
      if (m.type === 'system' && m.subtype === 'init' && m.permissionMode === 'bypassPermissions')
        throw new NotWiredError(
          INTEGRATION,
          'a session in bypassPermissions mode',
          'Run it in another permission mode.',
        );
      if (m.type === 'result') result = m;
    }
  })
    .catch((e: unknown) => {
      if (abort.signal.aborted && timeout)
        throw new ClaudeTurnError(threadId, undefined, `no result within ${timeout} ms`);
      throw e;
    })
    .finally(() => clearTimeout(timer));
  if (!scope.wired) throw new NotWiredError(INTEGRATION, 'a turn', HOW);
  const unseen = toolsThatRan(messages).find((u) => !scope.seen.has(u.id));
  if (unseen) throw new NotWiredError(INTEGRATION, `tool call "${unseen.name}"`, HOW);
  if (!result || result.subtype !== 'success' || result.is_error) throw new ClaudeTurnError(threadId, result);
  return { messages, result, transcript: transcript.after(result.session_id) };
}

/**
 * A turn, then its save: a pause opening the requests of the calls that need a person (beside the
 * ones still waiting from before, `carried`), or its end.
 */
export async function runAndSave(
  ctx: ClaudeContext,
  run: ThreadRun,
  threadId: string,
  prompt: string,
  scope: RunScope,
  held: readonly HeldCall[],
  /** The calls still waiting from before that this turn did not propose again, and their standing requests. */
  carry: () => { waiting: ClaudeWaiting[]; requests: ApprovalRequest[] } = () => ({ waiting: [], requests: [] }),
): Promise<ClaudeRunResult> {
  const { messages, result, transcript } = await runTurn(ctx, threadId, prompt, scope, transcriptOf(run.state));
  const before = carry();
  // Calls the hook held past holdMs wait like paused ones: their requests are open already.
  const carried = {
    waiting: [...before.waiting, ...held.map((h) => h.waiting)],
    requests: [...before.requests, ...held.map((h) => h.request)],
  };
  const { items, waiting, known } = await scope.calls.collectPause<{ tool: string }>(scope.stopped);
  const all: ClaudeWaiting[] = [...carried.waiting, ...waiting];
  const state: AdapterState = { adapter: 'claude-agent-sdk', waiting: all, framework: { transcript } };
  const newMessages = toThreadMessages(prompt, messages);
  const base = { threadId, text: result.result, sessionId: result.session_id, result };
  if (items.length > 0) {
    const paused = await run.pause(newMessages, state, items, `agent:${ctx.name}`);
    return {
      ...base,
      stopReason: 'interrupt',
      interrupts: interruptsOf([...carried.requests, ...known, ...paused.requests]),
    };
  }
  await run.finish(newMessages, state, all.length ? 'interrupted' : 'completed');
  return {
    ...base,
    stopReason: all.length ? 'interrupt' : 'end_turn',
    interrupts: interruptsOf([...carried.requests, ...known]),
  };
}
