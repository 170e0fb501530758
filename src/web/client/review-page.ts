import { api, ApiError } from './api.ts';
import { confirmStep } from './confirm.ts';
import { diffArgs, diffTable } from './diff.ts';
import { byId, h, put } from './dom.ts';
import { evidencePanel } from './evidence.ts';
import { exactJson, roleChip, statusPill, tierBadge } from './format.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { CONFLICT_CODES, expiredText, refusalText } from './refusals.ts';
import { reveal } from './reveal.ts';
import { actionSection, whyNot } from './review-card.ts';
import type { SchemaForm } from './schema-form.ts';
import * as ui from './review-panels.ts';
import { pendingRequests, startShell } from './shell.ts';
import { countdown } from './time.ts';
import { me, type DecisionAnswer, type ReviewPacket } from './types.ts';

/**
 * The review card: exactly what will run, why it needs a person, the
 * untrusted evidence apart, and the four decisions, each behind a confirm
 * step. Every decision carries the version and action hash shown; a conflict
 * (409/410) says what happened and refreshes the card.
 */

type Panel = 'edit' | 'reject' | 'respond' | null;

const root = byId('card');
const requestId = byId('main').dataset.id ?? '';
const myself = me();

let packet: ReviewPacket | undefined;
let panel: Panel = null;
let banner: ui.Banner | undefined;
let busy = false;
/** Until when live "decided" events for this request are our own decision echoing back. */
let ownUntil = 0;
let editForm: SchemaForm | undefined;
/** Open panels survive re-renders (live updates) while the request stays at the same version. */
const panels = new Map<string, HTMLElement>();

/** The open confirm dialog's way to learn that its decision no longer applies. */
let confirming: AbortController | undefined;

/** Close the door on an open confirm dialog: `why` is shown in it, and Confirm can no longer send. */
function staleConfirm(why: string): void {
  confirming?.abort(`${why} Your decision was not sent.`);
}

async function load(): Promise<void> {
  try {
    packet = await api<ReviewPacket>(`/api/v1/approvals/${encodeURIComponent(requestId)}`);
    document.title = document.title.replace(/Review(?: of \S+)?/, `Review of ${reveal(packet.tool)}`);
  } catch (err) {
    if (!packet) {
      put(
        root,
        h(
          'div',
          { class: 'alert alert-error', role: 'alert' },
          err instanceof ApiError ? err.message : 'The request could not be loaded.',
        ),
      );
      return;
    }
    banner = { kind: 'error', text: err instanceof ApiError ? err.message : 'The request could not be reloaded.' };
  }
  render();
}

function canDecide(type: ui.DecisionBody['type']): boolean {
  return !busy && packet !== undefined && !ui.expired(packet) && packet.allowedDecisions.includes(type);
}

function decisionSection(p: ReviewPacket): HTMLElement {
  const allowed = ui.expired(p) ? [] : p.allowedDecisions;
  if (allowed.length === 0) {
    return h(
      'section',
      { class: 'decide', 'aria-labelledby': 'h-decide' },
      h('h2', { id: 'h-decide' }, 'Decision'),
      h('p', { class: 'muted', id: 'no-decision' }, whyNot(p, myself)),
    );
  }
  const trust = p.trustable ? h('input', { type: 'checkbox', id: 'trust', name: 'trust' }) : null;
  const button = (type: ui.DecisionBody['type'], label: string, key: string, cls: string, onClick: () => void) =>
    h(
      'button',
      {
        type: 'button',
        class: `btn ${cls}`,
        id: `do-${type}`,
        'aria-keyshortcuts': key,
        'aria-expanded': type === 'approve' ? null : String(panel === type),
        disabled: busy || !allowed.includes(type),
        onClick,
      },
      label,
      ' ',
      ui.keyHint(key.toUpperCase()),
    );
  return h(
    'section',
    { class: 'decide', 'aria-labelledby': 'h-decide' },
    h('h2', { id: 'h-decide' }, 'Decision'),
    h(
      'div',
      { class: 'decide-buttons', role: 'group', 'aria-label': 'Decisions' },
      button('approve', 'Approve', 'a', 'btn-primary', () => void approve()),
      button('edit', 'Edit', 'e', '', () => openPanel('edit')),
      button('reject', 'Reject', 'r', 'btn-danger-outline', () => openPanel('reject')),
      button('respond', 'Respond', 'n', '', () => openPanel('respond')),
    ),
    trust
      ? h(
          'div',
          { class: 'check trust' },
          trust,
          h(
            'label',
            { for: 'trust' },
            'Approve and trust for this thread: later calls under rule ',
            h('code', null, p.ruleId),
            ' in this thread run without asking',
          ),
        )
      : null,
    panel ? cachedPanel(p, panel) : null,
  );
}

function cachedPanel(p: ReviewPacket, which: Exclude<Panel, null>): HTMLElement {
  const key = `${which}:${p.version}:${p.actionHash}`;
  let el = panels.get(key);
  if (!el) {
    panels.clear();
    const ctx = { busy: () => busy, cancel: () => openPanel(null) };
    el =
      which === 'edit'
        ? ui.editPanel(p, { ...ctx, onForm: (form) => (editForm = form), submit: () => void submitEdit() })
        : ui.messagePanel(which, p.tool, { ...ctx, decide: (step, body) => void decideWithConfirm(step, body) });
    panels.set(key, el);
  }
  return el;
}

function render(): void {
  const p = packet;
  if (!p) return;
  const focusId = document.activeElement?.id;
  put(
    root,
    h(
      'article',
      {
        class: 'card review',
        'aria-labelledby': 'review-title',
        'data-status': p.status,
        'data-version': String(p.version),
      },
      h(
        'header',
        { class: 'review-head' },
        h('h1', { id: 'review-title' }, h('code', { class: 'tool-name' }, p.tool), ' ', statusPill(p.status)),
        h(
          'p',
          { class: 'review-sub' },
          tierBadge(p.tier),
          ' ',
          roleChip(p.requiredRole),
          ' ',
          h('span', { class: 'chip' }, `${p.approvalsReceived}/${p.approvalsRequired} approvals`),
          ' ',
          p.status === 'pending'
            ? h('span', { class: 'chip' }, 'expires in ', countdown(h('span', { class: 'countdown' }), p.expiresAt))
            : null,
        ),
      ),
      ui.bannerEl(banner),
      // On a phone the columns stack in this order: the action, the evidence, then the decision.
      h(
        'div',
        { class: 'review-grid' },
        actionSection(p, myself, onExpired),
        evidencePanel(p.untrusted.evidence),
        decisionSection(p),
      ),
    ),
  );
  if (focusId) document.getElementById(focusId)?.focus();
}

function openPanel(which: Panel): void {
  if (which !== null && (!packet || !canDecide(which))) return;
  if (which === null) panels.clear();
  panel = which;
  render();
  if (which === 'edit') editForm?.focusFirst();
  else if (which) document.getElementById(`${which}-message`)?.focus();
  else document.getElementById('do-approve')?.focus();
}

function onExpired(): void {
  if (packet?.status !== 'pending') return;
  const text = expiredText(packet);
  staleConfirm(text);
  banner = { kind: 'warn', text: `${text} It takes no more decisions.` };
  panel = null;
  void load();
}

async function approve(): Promise<void> {
  if (!canDecide('approve')) return;
  const p = packet!;
  const trust = (document.getElementById('trust') as HTMLInputElement | null)?.checked === true;
  await decideWithConfirm(
    {
      title: trust ? 'Approve and trust for this thread?' : 'Approve this action?',
      body: [
        h(
          'p',
          null,
          h('code', null, p.tool),
          p.approvalsRequired - p.approvalsReceived > 1
            ? ' will run once enough reviewers approve, with:'
            : ' will run with:',
        ),
        h('pre', { class: 'mono' }, exactJson(p.args)),
        trust
          ? h(
              'p',
              null,
              'Later calls under rule ',
              h('code', null, p.ruleId),
              ' in this thread will run without asking.',
            )
          : null,
      ],
      confirm: trust ? 'Approve and trust' : 'Approve',
    },
    { type: 'approve', ...(trust ? { trust: true } : {}) },
  );
}

async function submitEdit(): Promise<void> {
  if (!canDecide('edit') || !editForm || !packet) return;
  const { args, problems } = editForm.read();
  const changes = diffArgs(packet.args, args);
  if (problems.length || changes.length === 0) {
    editForm.showIssues(problems);
    editForm.focusFirst();
    return;
  }
  await decideWithConfirm(
    {
      title: 'Submit this edit?',
      body: [
        h('p', null, 'Instead of the proposal, ', h('code', null, packet.tool), ' will run with your changes:'),
        diffTable(changes),
        h('pre', { class: 'mono' }, exactJson(args)),
      ],
      confirm: 'Submit edit',
    },
    { type: 'edit', args },
  );
}

async function decideWithConfirm(step: Parameters<typeof confirmStep>[0], body: ui.DecisionBody): Promise<void> {
  if (!canDecide(body.type)) return;
  confirming?.abort();
  const ctl = new AbortController();
  confirming = ctl;
  const yes = await confirmStep({ ...step, signal: ctl.signal });
  if (confirming === ctl) confirming = undefined;
  if (!yes) return;
  await submit(body);
}

/** While a decision is in flight every decision button is disabled: nothing can be sent twice. */
function setBusy(on: boolean): void {
  busy = on;
  for (const b of root.querySelectorAll<HTMLButtonElement>('.decide button')) {
    if (on) {
      b.dataset.wasDisabled = String(b.disabled);
      b.disabled = true;
    } else if (b.dataset.wasDisabled !== undefined) {
      b.disabled = b.dataset.wasDisabled === 'true';
      delete b.dataset.wasDisabled;
    }
  }
  root.setAttribute('aria-busy', String(on));
}

async function nextLink(): Promise<Array<{ href: string; label: string }>> {
  try {
    const { items } = await pendingRequests();
    const next = items.find((r) => r.id !== requestId && myself.roles.includes(r.requiredRole));
    return next
      ? [{ href: `/approvals/${encodeURIComponent(next.id)}`, label: `Next: ${next.tool} →` }]
      : [{ href: '/', label: 'Queue is empty — back to it' }];
  } catch {
    return [{ href: '/', label: 'Back to the queue' }];
  }
}

async function submit(body: ui.DecisionBody): Promise<void> {
  const p = packet;
  if (!p || busy) return;
  if (ui.expired(p)) {
    // The time ran out while the dialog was open: the server would refuse, so nothing is sent.
    banner = { kind: 'warn', text: `${expiredText(p)} Your decision was not sent.` };
    panel = null;
    render();
    document.getElementById('banner')?.focus();
    return;
  }
  setBusy(true);
  const thread = { href: `/threads/${encodeURIComponent(p.threadId)}`, label: 'Open the thread' };
  try {
    const r = await api<DecisionAnswer>(`/api/v1/approvals/${encodeURIComponent(p.id)}/decision`, {
      ...body,
      expectedVersion: p.version,
      actionHash: p.actionHash,
    });
    ownUntil = Date.now() + 3000;
    panel = null;
    panels.clear();
    const texts: Record<DecisionAnswer['outcome'], string> = {
      authorized:
        body.type === 'edit'
          ? 'Edit approved. The agent resumes and the edited action runs once.'
          : 'Approved. The agent resumes and the action runs once.',
      pending: `Your approval is counted (${r.request.approvalsReceived} of ${r.request.approvalsRequired}). It runs once enough reviewers approve.`,
      rejected: 'Rejected. The action does not run; the agent has your message and re-plans.',
      responded: 'Answer sent. The tool does not run; the agent continues with your answer.',
      superseded: 'Your edit needs a stricter review (a higher tier or a fresh quorum), so it became a new request.',
    };
    const links = r.newRequestId
      ? [{ href: `/approvals/${encodeURIComponent(r.newRequestId)}`, label: 'Open the new request' }, thread]
      : [thread, ...(await nextLink())];
    banner = { kind: 'ok', text: texts[r.outcome], links };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (CONFLICT_CODES.has(err.code)) {
      setBusy(false);
      panel = null;
      await load();
      // Worded from the refreshed request: an expiry reads as an expiry, not as someone else's decision.
      banner = { kind: 'warn', text: refusalText(err, packet ?? p), links: [thread, ...(await nextLink())] };
      render();
      document.getElementById('banner')?.focus();
      return;
    } else if (err.status === 400 && body.type === 'edit' && editForm) {
      editForm.showIssues(err.issues.map((i) => ({ path: i.path.replace(/^args\.?/, ''), message: i.message })));
      banner = { kind: 'error', text: refusalText(err, p) };
      setBusy(false);
      render();
      editForm.focusFirst();
      return;
    } else {
      banner = { kind: 'error', text: refusalText(err, p) };
    }
  }
  setBusy(false);
  await load();
  document.getElementById('banner')?.focus();
}

addShortcuts([
  { key: 'a', label: 'Approve (then confirm)', run: () => void approve() },
  { key: 'e', label: 'Edit the arguments', run: () => openPanel('edit') },
  { key: 'r', label: 'Reject with a message', run: () => openPanel('reject') },
  { key: 'n', label: 'Respond instead of running the tool', run: () => openPanel('respond') },
  { key: 'Escape', label: 'Close the open panel', run: () => openPanel(null) },
]);
startShell();
live().on((e) => {
  if (e.requestId !== requestId) return;
  if (e.type === 'approval.decided' || e.type === 'approval.expired') {
    if (busy || Date.now() < ownUntil) return;
    const text =
      e.type === 'approval.expired'
        ? expiredText({ expiresAt: packet?.expiresAt, onTimeout: e.applied ?? packet?.onTimeout })
        : e.status === 'pending'
          ? 'Another reviewer just approved this request (counted toward its quorum).'
          : `Another reviewer just decided this request (${e.decision ?? 'decided'}).`;
    staleConfirm(text);
    banner = { kind: 'warn', text: `${text} The card has been refreshed.` };
    panel = null;
    void load();
  } else if (e.type === 'execution.finished') {
    void load();
  }
});
live().onResync(() => void load());
void load();
