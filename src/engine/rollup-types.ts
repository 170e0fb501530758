/**
 * The roll-up's shape, with no imports: the web UI's browser code (a DOM-only
 * program without Node types) reads the same types as the engine that makes them.
 */

/** Figures of a group of requests (a tool's, a tier's) over a window. Planted checks are never counted. */
export interface RequestFigures {
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
  /** Calls the policy gated: those that ran without a person (auto, notify) plus those that paused. */
  calls: number;
  /** Calls that paused, over calls: a sudden drop means a gate condition broke; a spike, something upstream changed. */
  interruptRate: number | null;
}

/** Per-tool figures over a window. */
export interface ToolRollup extends RequestFigures {
  tool: string;
}

/** Per-tier figures over a window (a correction on a draft and on a money movement mean different things). */
export interface TierRollup extends RequestFigures {
  tier: string;
}

/** Requests opened and resolved in one interval, for one role: the queue grows when opened outpaces resolved. */
export interface QueueFlow {
  role: string;
  /** Start of the interval (epoch ms). */
  at: number;
  opened: number;
  resolved: number;
}

/** How often planted checks were caught, for one reviewer, role, rule or tier. */
export interface YieldRow {
  key: string;
  planted: number;
  /** Rejected or answered instead of approved. */
  caught: number;
  /** Approved or edited. */
  missed: number;
  /** Caught over decided; null when none was decided. */
  yield: number | null;
}

/** Planted checks over the window: placed, decided, caught, and how fast they were decided beside real requests. */
export interface PlantedFigures {
  placed: number;
  decided: number;
  caught: number;
  yield: number | null;
  byReviewer: YieldRow[];
  byRole: YieldRow[];
  byRule: YieldRow[];
  byTier: YieldRow[];
  medianMinutesToDecision: { planted: number | null; real: number | null };
}

/** A signal, not a verdict: how fast a reviewer approves after opening a card. */
export interface ReviewerPace {
  reviewer: string;
  /** Approvals (and edits) in the window. */
  approvals: number;
  /** Of those, decided from a card the reviewer had opened (the others came from the CLI, API or a batch). */
  timed: number;
  medianSecondsToApprove: number | null;
  /** Share of timed approvals made within `fastSeconds` of opening the card. */
  fastShare: number | null;
  fastSeconds: number;
}

/** The roll-up `interlock metrics` prints. */
export interface Rollup {
  since: number;
  until: number;
  tools: ToolRollup[];
  tiers: TierRollup[];
  /**
   * Requests by the agent that asked: its name, or in a tree of agents the path from the root
   * (`support/refunds`, `maintenance/cleanup`). Requests a reviewer's edit opened count for the agent.
   */
  agents: Array<{ agent: string; requests: number; pending: number }>;
  /** Threads that finished in the window, and the share that never waited on a person. */
  threads: { finished: number; autonomous: number; autonomousRate: number | null };
  /** Requests opened and resolved per interval (an hour up to two days' window, else a day), by role. */
  queue: { intervalMs: number; flows: QueueFlow[] };
  resume: { done: number; dead: number; pending: number; successRate: number | null };
  /** For operators only (`oversight: true`): planted checks and the reviewers' pace. */
  oversight?: { planted: PlantedFigures; reviewers: ReviewerPace[] };
}
