import { TextBlock, Tool, ToolResultBlock, type ToolContext, type ToolStreamGenerator } from '@strands-agents/sdk';
import { ConfigError } from '../../core/index.ts';
import { withExecution, type AdapterCall, type CallCheck, type CallGate } from '../core/index.ts';

/** How a run must hand the agent to Strands: said by every wiring error. */
export const HOW =
  'Invoke the agent Interlock hands `run` — `run: (agent, input) => agent.invoke(input)` — not an agent of your own, and build a new Agent in `agent: () => new Agent({ ... })` each time.';

/** A tool's own `stream`, which only Interlock's gated tool calls once the tool is guarded. */
export type ToolStream = (this: Tool, ctx: ToolContext) => ToolStreamGenerator;

/** The tool result the model reads for a call that did not run as proposed. */
export function textResult(toolUseId: string, text: string, status: 'success' | 'error'): ToolResultBlock {
  return new ToolResultBlock({ toolUseId, status, content: [new TextBlock(text)] });
}

/**
 * The tool Interlock puts in place of a call's own (`BeforeToolCallEvent.selectedTool`): it runs the
 * tool's body once under the ledger, with the arguments the policy or a decision authorized, and
 * hands the SDK the tool's result (replayed from the ledger when the call ran before).
 */
export class GatedTool extends Tool {
  readonly name: string;
  readonly description: string;
  readonly toolSpec: Tool['toolSpec'];
  private readonly gate: CallGate;
  private readonly inner: Tool;
  private readonly original: ToolStream;
  private readonly call: AdapterCall;
  private readonly check: Extract<CallCheck, { kind: 'run' | 'approved' }>;
  constructor(
    gate: CallGate,
    inner: Tool,
    original: ToolStream,
    call: AdapterCall,
    check: Extract<CallCheck, { kind: 'run' | 'approved' }>,
  ) {
    super();
    this.gate = gate;
    this.inner = inner;
    this.original = original;
    this.call = call;
    this.check = check;
    this.name = inner.name;
    this.description = inner.description;
    this.toolSpec = inner.toolSpec;
  }

  // eslint-disable-next-line require-yield -- the tool's progress events stay inside the ledger's run
  async *stream(ctx: ToolContext): ToolStreamGenerator {
    const toolUseId = ctx.toolUse.toolUseId;
    const r = await this.gate.run(
      this.call,
      async (args, ledger) => {
        const interlock = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
        const own: ToolContext & { interlock: typeof interlock } = {
          ...ctx,
          toolUse: { ...ctx.toolUse, input: args as ToolContext['toolUse']['input'] },
          interlock,
          // A decision inside the tool would pause a call that is already authorized and half run.
          interrupt: () => {
            throw new ConfigError(
              `Tool "${this.name}" raised its own interrupt inside a call Interlock runs; the call ends with this error as its result. Ask for approval with Interlock's policy (a rule for the tool) instead of context.interrupt().`,
            );
          },
        };
        const block = await withExecution(interlock, () => drain(this.original.call(this.inner, own)));
        return block.toJSON().toolResult;
      },
      this.check,
    );
    if (r.status === 'refused') return textResult(toolUseId, `Not run: ${r.message}`, 'error');
    if (r.status === 'failed') return textResult(toolUseId, `The tool failed: ${r.error}`, 'error');
    const result = ToolResultBlock.fromJSON({ toolResult: { ...r.result, toolUseId } });
    if (!r.edited) return result;
    return new ToolResultBlock({
      toolUseId,
      status: result.status,
      content: [new TextBlock(this.gate.texts.edited(r.args)), ...result.content],
    });
  }
}

/** A reviewer's answer (`respond`) as the call's result: nothing runs. */
export class AnswerTool extends Tool {
  readonly description = "A reviewer's answer in place of the tool";
  readonly toolSpec: Tool['toolSpec'];
  readonly name: string;
  private readonly answer: string;
  constructor(name: string, answer: string) {
    super();
    this.name = name;
    this.answer = answer;
    this.toolSpec = { name, description: this.description, inputSchema: { type: 'object', properties: {} } };
  }
  // eslint-disable-next-line require-yield -- an answer has no progress
  async *stream(ctx: ToolContext): ToolStreamGenerator {
    return textResult(ctx.toolUse.toolUseId, this.answer, 'success');
  }
}

/** The tool's result, its progress events left out (the ledger keeps the result only). */
async function drain(gen: ToolStreamGenerator): Promise<ToolResultBlock> {
  for (;;) {
    const next = await gen.next();
    if (next.done) return next.value;
  }
}
