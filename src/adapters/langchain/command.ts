import { Command } from '@langchain/langgraph';
import { load } from '@langchain/core/load';

/** A tool's Command as JSON for the ledger (LangChain messages serialize themselves). */
export function commandJson(cmd: Command): { update?: unknown; goto?: unknown; graph?: string } {
  const json = (v: unknown) => (v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown));
  const goto = json(cmd.goto);
  return {
    ...(cmd.update === undefined ? {} : { update: json(cmd.update) }),
    ...(goto === undefined || (Array.isArray(goto) && goto.length === 0) ? {} : { goto }),
    ...(cmd.graph ? { graph: cmd.graph } : {}),
  };
}

/** The Command again from the ledger's JSON: LangChain's `load` revives the messages in its update. */
export async function commandOf(j: { update?: unknown; goto?: unknown; graph?: string }): Promise<Command> {
  const update = j.update === undefined ? undefined : await load<Record<string, unknown>>(JSON.stringify(j.update));
  return new Command({
    ...(update === undefined ? {} : { update }),
    ...(j.goto === undefined ? {} : { goto: j.goto as string | string[] }),
    ...(j.graph ? { graph: j.graph } : {}),
  });
}
