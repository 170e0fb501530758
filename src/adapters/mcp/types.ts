import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Interlock } from '../../engine/index.ts';
import type { CallGate, CallGateOptions } from '../core/index.ts';

/** Options of {@link createMcpGateway}. */
export interface McpGatewayOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  interlock: Interlock;
  /** Connected MCP clients of the upstream servers, by a short name (used to namespace clashing tools). */
  upstreams: Record<string, Client>;
  /** Threads and audit name the gateway by this (default `mcp-gateway`). */
  name?: string;
  /** Who is calling (the MCP client's user): requests of different principals are apart (default `local`). */
  principal?: (extra: { authInfo?: { clientId?: string } }) => string;
  /**
   * How long a gated call is held open waiting for a decision before the gateway answers that it awaits
   * approval (default 20 000 ms; keep it under the client's request timeout, 60 s by default).
   */
  holdMs?: number;
  /**
   * Verdicts for upstream tools the policy has no rules for, from the tool's own annotations (see
   * `hintedTier`): a `readOnlyHint` tool of an upstream listed in `trustAnnotationsOf` gets `readOnly`;
   * every other unnamed tool gets `other` (with `role` for a tier that pauses). Without this option
   * such tools are blocked: nothing without a verdict runs. Rules always win over hints.
   */
  hints?: {
    readOnly?: 'auto' | 'notify' | 'approve' | 'block';
    other?: 'auto' | 'notify' | 'approve' | 'block';
    role?: string;
    /**
     * Upstreams whose `readOnlyHint` the operator trusts (their annotations are the server's claims).
     * A read-only hint of any other upstream counts for nothing: the tool gets `other`.
     */
    trustAnnotationsOf?: string[];
  };
  /**
   * The role of the MCP client's own user (default `mcp-user`). A rule whose role is this one may be
   * confirmed by that user through MCP elicitation, when the client supports it; it never satisfies a
   * rule of any other role (those need another person).
   */
  userRole?: string;
  /**
   * How long after its decision a decided call can be collected by a repeat, in ms. By default, until
   * the request's own expiry (its rule's timeout from when it opened): an approval made for a call
   * stays collectable as long as the request was open to a decision, and no longer.
   */
  repeatWindowMs?: number;
  /**
   * How long an "approve and trust" lasts, in ms (default 1 hour), and never beyond the client's
   * session: a grant made in another session, or longer ago, does not lower a call's tier.
   */
  trustTtlMs?: number;
}

/** An exposed tool and the upstream that serves it: its client, its own listing, and the name the gateway lists it by. */
export interface Route {
  upstream: string;
  client: Client;
  tool: McpTool;
  name: string;
}

/** What every call through one gateway shares: its options and their defaults, the call gate and the routes. */
export interface GatewayContext {
  o: McpGatewayOptions;
  il: Interlock;
  /** Threads and audit name the gateway by this. */
  name: string;
  holdMs: number;
  /** See {@link McpGatewayOptions.repeatWindowMs}; undefined: until the request's expiry. */
  repeatWindowMs: number | undefined;
  trustTtlMs: number;
  userRole: string;
  gate: CallGate;
  routes: Map<string, Route>;
  /**
   * Requests whose outcome this process answered to a client (a repeat after that is a new call);
   * recorded in the audit too (`outcome_delivered`), for other processes and restarts.
   */
  answered: Set<string>;
}
