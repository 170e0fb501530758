import type { z } from 'zod';
import type { Interlock } from '../engine/index.ts';
import type { Reviewer } from '../core/index.ts';

/** Hono environment of the app: the authenticated caller travels in `c.var.principal`. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** A thread as the threads adapter reports it. */
export interface ThreadView {
  threadId: string;
  status: string;
  [key: string]: unknown;
}

/**
 * Starts, reads and aborts agent runs; supplied by the agent layer, so the
 * server does not depend on it. Without one, the endpoints that start or abort
 * runs answer 501.
 */
export interface ThreadsAdapter {
  /** Start `agent` on `input` in a new thread (named `threadId` when given). An id already taken is refused (409 `thread_exists`). */
  start(agent: string, input: unknown, threadId?: string): Promise<{ threadId: string; status: string }>;
  /** The thread, or undefined when there is none with that id. */
  get(threadId: string): Promise<ThreadView | undefined>;
  /** Ask the thread to stop; returns its status afterwards. */
  abort(threadId: string): Promise<{ threadId: string; status: string }>;
}

/** Argument schemas of tools, for the review packet's edit form. */
export type ToolSchemas = Record<string, z.ZodType>;

/** What every route module needs. */
export interface RouteDeps {
  interlock: Interlock;
  threads: ThreadsAdapter | undefined;
  /** JSON Schema of a tool's arguments, or null when unknown or not representable. */
  argsSchema(tool: string): Promise<Record<string, unknown> | null>;
}

/** Who is calling, once authenticated. */
export interface Principal extends Reviewer {
  name: string;
  /** Holds the operator role. */
  operator: boolean;
  /** How the caller proved it: an API token, or a browser session cookie. */
  via: 'bearer' | 'session';
}
