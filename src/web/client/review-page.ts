import { api, ApiError } from './api.ts';
import { confirmStep } from './confirm.ts';
import { relatedFactsPanel } from './related-facts.ts';
import { cardClaim } from './claims.ts';
import { notesPanel } from './notes.ts';
import { diffArgs, diffTable } from './diff.ts';
import { decisionSection } from './decision-section.ts';
import { byId, h, put } from './dom.ts';
import { draftsFor } from './drafts.ts';
import { evidenceColumn } from './evidence.ts';
import { exactJson } from './format.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { outcomeEl, outcomeOf } from './outcome.ts';
import { CONFLICT_CODES, expiredText, refusalText } from './refusals.ts';
import { reveal } from './reveal.ts';
import { actionSection, reviewHeader } from './review-card.ts';
import type { SchemaForm } from './schema-form.ts';
import * as ui from './review-panels.ts';
import { startShell } from './shell.ts';
import { me, type DecisionAnswer, type NextRequest, type ReviewPacket } from './types.ts';

/**
 * The review card: exactly what will run, why it needs a person, the
 * evidence in two parts (what the system computed, what the customer or the
 * model wrote), and the four decisions, each behind a confirm step. Every
 * decision carries the version and action hash shown; a conflict (409/410)
 * says what happened and refreshes the card. Once decided, the card follows
 * the request to its end, live, with one status statement at a time.
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
/**
 * The mount point for the "related requests / current facts" panel, right under the arguments:
 * one element for the page's life, so what is placed in it survives re-renders.
 */
const relatedFacts = h('div', { id: 'related-facts', class: 'related-facts' });
/** Related requests and current facts, read once when the card opens, and again before a decision. */
const facts = relatedFactsPanel(relatedFacts, requestId);
/** Who is looking at this request, and internal notes: mounted once, kept across renders. */
const claim = cardClaim(requestId, myself);
const notes = notesPanel(requestId, myself);
let focusedHeading = false;

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

function cachedPanel(p: ReviewPacket, which: Exclude<Panel, null>): HTMLElement {
  const key = `${which}:${p.version}:${p.actionHash}`;
  let el = panels.get(key);
  if (!el) {
    panels.clear();
    const ctx = { busy: () => busy, cancel: () => openPanel(null), drafts: draftsFor(p.id, p.actionHash) };
    el =
      which === 'edit'
        ? ui.editPanel(p, { ...ctx, onForm: (form) => (editForm = form), submit: () => void submitEdit() })
        : ui.messagePanel(which, p, { ...ctx, decide: (step, body) => void decideWithConfirm(step, body) });
    panels.set(key, el);
  }
  return el;
}

function render(): void {
  const p = packet;
  if (!p) return;
  const focusId = document.activeElement?.id;
  const outcome = outcomeOf(p, myself);
  const replaced = p.replacement
    ? [{ href: `/approvals/${encodeURIComponent(p.replacement.id)}`, label: 'Open the new request' }]
    : [];
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
      reviewHeader(p, outcome),
      ui.bannerEl(banner),
      outcomeEl(outcome, replaced),
      // The action, then the decision right beside it (on a wide screen, the top of the right column,
      // in view without scrolling; on a phone, its buttons in a bar fixed at the bottom), then the
      // evidence. Reading and Tab order follow what the reviewer sees.
      h(
        'div',
        { class: 'review-grid' },
        actionSection(p, myself, onExpired, relatedFacts),
        decisionSection(p, myself, {
          busy,
          panel,
          panelEl: panel ? cachedPanel(p, panel) : null,
          approve: () => void approve(),
          open: (which) => openPanel(which),
          next: () => void goNext(),
          claim: claim.element,
        }),
        evidenceColumn(p),
      ),
      notes,
    ),
  );
  claim.update(p);
  if (focusId) document.getElementById(focusId)?.focus();
  else if (!focusedHeading) document.getElementById('review-title')?.focus();
  // The card opens with focus on its heading (not <body>): the next Tab reaches the card's controls.
  focusedHeading = true;
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
  // Facts read again just before a decision that lets the action run: what moved is said in the dialog.
  const moved = body.type === 'approve' || body.type === 'edit' ? await facts.moved() : null;
  const warned = moved
    ? {
        ...step,
        body: [
          h('p', { class: 'alert alert-warn', role: 'alert' }, moved, ' Check them before you decide.'),
          step.body,
        ],
      }
    : step;
  const yes = await confirmStep({ ...claim.warn(warned), signal: ctl.signal });
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

/** The next request this reviewer can decide (GET /review/next passes over the rest), as a link. */
async function nextLink(): Promise<Array<{ href: string; label: string }>> {
  try {
    const { next } = await api<NextRequest>(`/api/v1/review/next?skip=${encodeURIComponent(requestId)}`);
    return next
      ? [{ href: `/approvals/${encodeURIComponent(next.id)}`, label: `Next: ${next.tool} →` }]
      : [{ href: '/', label: 'Nothing else waits for you — back to the queue' }];
  } catch {
    return [{ href: '/', label: 'Back to the queue' }];
  }
}

/** "Next request →" where nothing here is this reviewer's to decide: there, or say there is none. */
async function goNext(): Promise<void> {
  const [link] = await nextLink();
  if (link?.href.startsWith('/approvals/')) {
    window.location.assign(link.href);
    return;
  }
  banner = { kind: 'ok', text: 'Nothing else is waiting for you to decide.', links: link ? [link] : [] };
  render();
  document.getElementById('banner')?.focus();
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
    draftsFor(p.id, p.actionHash).clear();
    panel = null;
    panels.clear();
    // The request's fate from here on is the status statement's (it follows the request live); the
    // banner only says what this reviewer did, and where to go on.
    banner = { kind: 'ok', text: ui.decidedText(body, r), links: [thread, ...(await nextLink())] };
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
/**
 * Follow an approved request to its end. Its run starting has no event of its own: the agent's
 * thread changing status (it resumes, it ends) is when to look again, and `execution.finished`
 * tells the rest. For doors that announce neither, the card looks again now and then while the
 * request waits to run or runs.
 */
const FOLLOW_MS = 5000;
window.setInterval(() => {
  if (document.visibilityState === 'visible' && (packet?.status === 'authorized' || packet?.status === 'executing'))
    void load();
}, FOLLOW_MS);
live().on((e) => {
  if (e.type === 'thread.status' && packet && e.threadId === packet.threadId) {
    void load();
    return;
  }
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
    // A quorum vote leaves the request open: the reviewer's open panel (and its draft) stays.
    if (e.type === 'approval.expired' || e.status !== 'pending') panel = null;
    void load();
  } else if (e.type === 'execution.finished') {
    void load();
  }
});
live().onResync(() => void load());
void load();
