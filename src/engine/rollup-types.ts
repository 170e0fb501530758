/**
 * The roll-up's shape, with no imports: the web UI's browser code (a DOM-only
 * program without Node types) reads the same types as the engine that makes them.
 */

/** Per-tool figures over a window. */
export interface ToolRollup {
  tool: string;
  requests: number;
  pending: number;
  approved: number;
  edited: number;
  rejected: number;
  responded: number;
  expired: number;
  /** Approved or edited, over decided by a person. */
  approvalRate: number | null;
  /** Edited, over decided by a person: how often reviewers correct the agent. */
  correctionRate: number | null;
  medianMinutesToDecision: number | null;
}

/** The roll-up `interlock metrics` prints. */
export interface Rollup {
  since: number;
  until: number;
  tools: ToolRollup[];
  /**
   * Requests by the agent that asked: its name, or in a tree of agents the path from the root
   * (`support/refunds`, `maintenance/cleanup`). Requests a reviewer's edit opened count for the agent.
   */
  agents: Array<{ agent: string; requests: number; pending: number }>;
  resume: { done: number; dead: number; pending: number; successRate: number | null };
}
