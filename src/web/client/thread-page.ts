import { api, ApiError } from './api.ts';
import { changesLine } from './diff.ts';
import { byId, debounce, h, put, type Child } from './dom.ts';
import { actorName, exactJson, roleChip, short, show, statusPill, tierBadge } from './format.ts';
import { live } from './live.ts';
import { notesList } from './notes.ts';
import { startShell } from './shell.ts';
import { when } from './time.ts';
import { me, type Args, type Json, type RequestSummary } from './types.ts';

/**
 * A thread's timeline: the conversation in order, each tool call with its
 * interrupt, decisions and result, then the audit events with who and when,
 * and the audit chain status. Everything from the customer or the model is
 * text. Updates live while the thread runs.
 */

type Part =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: Json }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: string; value: Json } };
type Message = { role: 'user' | 'assistant' | 'tool'; content: Part[] };
type Event = {
  seq: number;
  id: string;
  type: string;
  actor: string;
  at: string;
  requestId: string | null;
  payload: Record<string, Json>;
};
type Chain =
  | { scope: 'full'; ok: boolean; events: number; headSeq?: number; brokenAt?: { seq: number; problem: string } }
  | { scope: 'thread'; ok: boolean; events: number; brokenAt: { seq: number; problem: string } | null };
interface Timeline {
  thread: {
    threadId: string;
    status: string;
    agent: string;
    agentVersion: string;
    createdAt: string;
    updatedAt: string;
    tree: { rootThreadId: string; parentThreadId: string; path: string[] } | null;
  };
  messages: Message[];
  requests: Array<RequestSummary & { toolCallId: string | null }>;
  /** Threads this one delegated to: sub-agents (under their call) and graph nodes. */
  children: ChildThread[];
  audit: Event[];
  auditTruncated: boolean;
  actors: Record<string, string>;
  chain: Chain;
}

interface ChildThread {
  threadId: string;
  agent: string;
  status: string;
  toolCallId: string | null;
  node: string | null;
  requests: RequestSummary[];
}

const root = byId('timeline');
const threadId = byId('main').dataset.id ?? '';
const myself = me();
const DECISION_EVENTS = new Set([
  'approved',
  'edited',
  'rejected',
  'responded',
  'expired',
  'escalated',
  'trusted',
  'refused',
  'executed',
  'failed',
  'notified',
]);

function chainStatus(c: Chain): HTMLElement {
  if (c.ok) {
    const text =
      c.scope === 'full'
        ? `Audit chain verified: all ${c.events} events link up and match their hashes.`
        : `This thread’s ${c.events} audit events match their hashes. (Verifying the whole chain is for operators.)`;
    return h('p', { class: 'chain chain-ok', id: 'chain-status' }, h('span', { 'aria-hidden': 'true' }, '✔ '), text);
  }
  const at = c.brokenAt;
  return h(
    'p',
    { class: 'chain chain-broken', id: 'chain-status', role: 'alert' },
    h('span', { 'aria-hidden': 'true' }, '✖ '),
    `Audit chain BROKEN at event ${at?.seq ?? '?'}: ${at?.problem ?? 'unknown problem'}.`,
  );
}

function who(actor: string, t: Timeline): string {
  return actorName(actor, t.actors, myself.id);
}

function eventLine(e: Event, t: Timeline): string {
  const p = e.payload;
  switch (e.type) {
    case 'approved':
      return `approved by ${who(e.actor, t)}${typeof p.approvals === 'number' ? ` (${p.approvals} of ${show(p.required)})` : ''}${p.trust === true ? ', with trust for this thread' : ''}`;
    case 'edited': {
      return `edited by ${who(e.actor, t)}: ${p.originalArgs && p.args ? changesLine(p.originalArgs as Args, p.args as Args) : 'no change'}`;
    }
    case 'rejected':
      return `rejected by ${who(e.actor, t)}${typeof p.message === 'string' ? `: “${p.message}”` : ''}`;
    case 'responded':
      return `answered by ${who(e.actor, t)}${typeof p.message === 'string' ? `: “${p.message}”` : ''}`;
    case 'expired':
      return `expired; ${show(p.applied ?? 'default')} applied`;
    case 'escalated':
      return `escalated to a new request (${show(p.to ?? '')})`;
    case 'refused':
      return `decision refused for ${who(e.actor, t)} (${show(p.code ?? '')})`;
    case 'executed':
      return 'executed once';
    default:
      return `${e.type} by ${who(e.actor, t)}`;
  }
}

function interrupt(r: Timeline['requests'][number], t: Timeline): HTMLElement {
  const events = t.audit.filter((e) => e.requestId === r.id && DECISION_EVENTS.has(e.type) && e.type !== 'notified');
  return h(
    'div',
    { class: 'interrupt', 'data-request-id': r.id },
    h(
      'p',
      { class: 'interrupt-head' },
      'Paused for approval ',
      tierBadge(r.tier),
      ' ',
      roleChip(r.requiredRole),
      ' ',
      statusPill(r.status),
      ' ',
      h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, 'review card'),
    ),
    h('p', { class: 'muted' }, r.reason),
    events.length
      ? h(
          'ul',
          { class: 'decisions' },
          events.map((e) => h('li', null, h('time', { datetime: e.at }, when(e.at)), ' — ', eventLine(e, t))),
        )
      : h('p', { class: 'muted small' }, 'Waiting for a decision.'),
    notesList(r.id, me()),
  );
}

/** A sub-agent's or graph node's thread, nested where it was started, with its approval requests. */
function childBlock(c: ChildThread): HTMLElement {
  return h(
    'div',
    { class: 'subagent', 'data-child-thread': c.threadId },
    h(
      'p',
      { class: 'call-head' },
      c.node ? ['Node ', h('code', null, c.node), ' · agent '] : 'Sub-agent ',
      h('code', { class: 'tool-name' }, c.agent),
      ' ',
      statusPill(c.status),
      ' ',
      h('a', { href: `/threads/${encodeURIComponent(c.threadId)}` }, 'its thread'),
    ),
    c.requests.map((r) =>
      h(
        'div',
        { class: 'interrupt', 'data-request-id': r.id },
        h(
          'p',
          { class: 'interrupt-head' },
          'Paused for approval: ',
          h('code', null, r.tool),
          ' ',
          tierBadge(r.tier),
          ' ',
          roleChip(r.requiredRole),
          ' ',
          statusPill(r.status),
          ' ',
          h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, 'review card'),
        ),
        h('p', { class: 'muted' }, r.agentPath ? `${r.agentPath.join(' › ')}: ${r.reason}` : r.reason),
      ),
    ),
  );
}

function resultOf(part: Extract<Part, { type: 'tool-result' }> | undefined): Child {
  if (!part) return h('p', { class: 'muted small result-none' }, 'No result yet.');
  const v = part.output.value;
  const error = part.output.type === 'error-text';
  return h(
    'div',
    { class: `result${error ? ' result-error' : ''}` },
    h('p', { class: 'label' }, error ? 'Result (error)' : 'Result'),
    h('pre', { class: 'mono' }, typeof v === 'string' ? v : exactJson(v)),
  );
}

function conversation(t: Timeline): HTMLElement {
  const results = new Map<string, Extract<Part, { type: 'tool-result' }>>();
  for (const m of t.messages) for (const p of m.content) if (p.type === 'tool-result') results.set(p.toolCallId, p);
  const byCall = new Map<string, Timeline['requests']>();
  for (const r of t.requests) if (r.toolCallId) byCall.set(r.toolCallId, [...(byCall.get(r.toolCallId) ?? []), r]);
  const items: HTMLElement[] = [];
  for (const m of t.messages) {
    if (m.role === 'tool') continue; // results are shown under their calls
    const texts = m.content.filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text');
    const calls = m.content.filter((p): p is Extract<Part, { type: 'tool-call' }> => p.type === 'tool-call');
    items.push(
      h(
        'li',
        { class: `msg msg-${m.role}` },
        h('p', { class: 'label' }, m.role === 'user' ? 'Customer' : 'Agent'),
        texts.map((p) => h('p', { class: 'user-text' }, p.text)),
        calls.map((c) =>
          h(
            'div',
            { class: 'call', 'data-tool-call-id': c.toolCallId },
            h('p', { class: 'call-head' }, 'Tool call ', h('code', { class: 'tool-name' }, c.toolName)),
            h('pre', { class: 'mono' }, exactJson(c.input)),
            (byCall.get(c.toolCallId) ?? []).map((r) => interrupt(r, t)),
            t.children.filter((k) => k.toolCallId === c.toolCallId).map(childBlock),
            resultOf(results.get(c.toolCallId)),
          ),
        ),
      ),
    );
  }
  const placed = new Set(
    t.messages.flatMap((m) =>
      m.content.filter((p) => p.type === 'tool-call').map((p) => (p as { toolCallId: string }).toolCallId),
    ),
  );
  const others = t.requests.filter((r) => !r.toolCallId || !placed.has(r.toolCallId));
  const nodes = t.children.filter((k) => !k.toolCallId || !placed.has(k.toolCallId));
  return h(
    'section',
    { class: 'conversation', 'aria-labelledby': 'h-conversation' },
    h('h2', { id: 'h-conversation' }, 'Conversation'),
    items.length ? h('ol', { class: 'messages' }, items) : h('p', { class: 'muted' }, 'No messages yet.'),
    others.length ? [h('h3', null, 'Other approval requests'), others.map((r) => interrupt(r, t))] : null,
    nodes.length ? [h('h3', null, 'Graph nodes run by agents'), nodes.map(childBlock)] : null,
  );
}

function auditLog(t: Timeline): HTMLElement {
  return h(
    'section',
    { class: 'audit', 'aria-labelledby': 'h-audit' },
    h('h2', { id: 'h-audit' }, 'Audit log'),
    chainStatus(t.chain),
    h(
      'ol',
      { class: 'events', id: 'audit-events' },
      t.audit.map((e) =>
        h(
          'li',
          { class: `event event-${e.type}`, 'data-type': e.type },
          h(
            'p',
            { class: 'event-head' },
            h('span', { class: 'seq' }, `#${e.seq}`),
            ' ',
            h('strong', null, e.type),
            ' ',
            h('time', { datetime: e.at }, when(e.at)),
          ),
          h(
            'p',
            { class: 'event-who' },
            who(e.actor, t),
            e.requestId
              ? [' · ', h('a', { href: `/approvals/${encodeURIComponent(e.requestId)}` }, short(e.requestId, 14))]
              : null,
          ),
          DECISION_EVENTS.has(e.type) && e.type !== 'notified'
            ? h('p', { class: 'muted small' }, eventLine(e, t))
            : null,
        ),
      ),
    ),
    t.auditTruncated
      ? h('p', { class: 'muted small' }, 'Older events are not shown; the audit API pages through all of them.')
      : null,
  );
}

async function load(): Promise<void> {
  let t: Timeline;
  try {
    t = await api<Timeline>(`/api/v1/threads/${encodeURIComponent(threadId)}/timeline`);
  } catch (err) {
    put(
      root,
      h(
        'div',
        { class: 'alert alert-error', role: 'alert' },
        err instanceof ApiError ? err.message : 'The thread could not be loaded.',
      ),
    );
    return;
  }
  const th = t.thread;
  put(
    root,
    h(
      'header',
      { class: 'page-head thread-head' },
      h(
        'h1',
        null,
        'Thread ',
        short(th.threadId, 24),
        ' ',
        h('span', { id: 'thread-status', 'data-status': th.status }, statusPill(th.status)),
      ),
      h(
        'p',
        { class: 'muted' },
        `${th.agent} v${th.agentVersion} · started ${when(th.createdAt)} · last change ${when(th.updatedAt)}`,
      ),
      th.tree
        ? h(
            'p',
            { class: 'tree-note' },
            `Part of a tree of agents (${th.tree.path.join(' › ')}); it runs when its root runs: `,
            h('a', { href: `/threads/${encodeURIComponent(th.tree.rootThreadId)}` }, 'root thread'),
          )
        : null,
    ),
    h('div', { class: 'thread-grid' }, conversation(t), auditLog(t)),
  );
}

const refresh = debounce(() => void load(), 200);
startShell();
live().on((e) => {
  if (e.threadId === threadId) refresh();
});
live().onResync(refresh);
void load();
