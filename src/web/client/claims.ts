import { api, ApiError } from './api.ts';
import type { ConfirmStep } from './review-panels.ts';
import { h, put, type Child } from './dom.ts';
import { live } from './live.ts';
import type { LiveEvent, Me, ReviewPacket } from './types.ts';

/**
 * Claims as the browser shows them: "Dana is looking at this since 14:02", in the queue's rows and on
 * the card. Advisory — a claim never disables a decision; the card's confirm dialog asks "decide
 * anyway?" over someone else's. One cache per page, loaded from GET /api/v1/claims and kept by the
 * live `claim.changed` events; every element showing a claim is patched in place when it changes.
 */

/** A claim as the API and the live events carry it. */
export type ClaimView = NonNullable<LiveEvent['claim']>;

const cache = new Map<string, ClaimView>();
const chips = new Set<{ requestId: string; el: HTMLElement; me: Me }>();
/** Cards showing a claim: told whenever the cache changes. */
const watchers = new Set<() => void>();
let started = false;

/** A live claim on `requestId`, if any (a lapsed one counts as none). */
function claimOf(requestId: string): ClaimView | undefined {
  const c = cache.get(requestId);
  if (c && Date.parse(c.expiresAt) <= Date.now()) cache.delete(requestId);
  return cache.get(requestId);
}

/** "14:02" in the reader's clock. */
const clock = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** "Dana Reviewer is looking at this since 14:02" (or "You are…"). */
export function claimText(c: ClaimView, me: Me): string {
  return `${c.reviewer === me.id ? 'You are' : `${c.name} is`} looking at this since ${clock(c.since)}`;
}

function patchChips(requestId?: string): void {
  for (const chip of chips) {
    if (!chip.el.isConnected) {
      chips.delete(chip);
      continue;
    }
    if (requestId === undefined || chip.requestId === requestId) fillChip(chip.el, chip.requestId, chip.me);
  }
  for (const w of watchers) w();
}

function fillChip(el: HTMLElement, requestId: string, me: Me): void {
  const c = claimOf(requestId);
  el.hidden = !c;
  put(el, c ? h('span', { class: 'chip chip-claim' }, `${claimText(c, me)}`) : null);
}

async function loadAll(): Promise<void> {
  try {
    const r = await api<{ items: Array<ClaimView & { requestId: string }> }>('/api/v1/claims');
    cache.clear();
    for (const c of r.items) cache.set(c.requestId, c);
  } catch {
    // Claims are advisory: without them the page still works; the next event fills them in.
  }
  patchChips();
}

/** Keep the cache: once per page, on first use. */
function start(): void {
  if (started) return;
  started = true;
  const l = live();
  l.on((e: LiveEvent) => {
    if (!e.requestId) return;
    if (e.type === 'claim.changed') {
      if (e.claim) cache.set(e.requestId, e.claim);
      else cache.delete(e.requestId);
    } else if (e.type === 'approval.decided' || e.type === 'approval.expired') {
      // A decision ends the claim; a quorum vote leaves the request (and who is looking at it) open.
      if (e.status !== 'pending') cache.delete(e.requestId);
    } else return;
    patchChips(e.requestId);
  });
  l.onResync(() => void loadAll());
  // A claim nobody renews lapses without an event: look again now and then.
  window.setInterval(() => patchChips(), 30_000);
  void loadAll();
}

/** The queue row's claim line: hidden until someone claims the request, then live. */
export function claimChip(requestId: string, me: Me): HTMLElement {
  start();
  const el = h('p', { class: 'qclaim', 'data-claim-for': requestId });
  chips.add({ requestId, el, me });
  fillChip(el, requestId, me);
  return el;
}

/** The card's claim: its line and buttons, the automatic claim on opening, renewal, release. */
export interface CardClaim {
  /** The mount point (one element for the page's life). */
  readonly element: HTMLElement;
  /** Follow the card's request as it is rendered: claim it on opening, stop once it is decided. */
  update(p: ReviewPacket): void;
  /** The confirm step of a decision, asking "decide anyway?" when someone else holds the claim. */
  warn(step: ConfirmStep): ConfirmStep;
}

/** What the card's claim line can do. */
interface LineActions {
  decidable: boolean;
  claim: (opts: { takeOver?: boolean }) => void;
  release: () => void;
}

/** The card's claim line: yours (with Release), someone else's (with Take over), or none (with Claim). */
function claimLine(c: ClaimView | undefined, me: Me, a: LineActions): Child {
  const button = (label: string, id: string, run: () => void) =>
    h('button', { type: 'button', class: 'btn btn-small', id, onClick: run }, label);
  if (c && c.reviewer === me.id)
    return [
      h(
        'span',
        { class: 'chip chip-claim chip-claim-mine' },
        `${claimText(c, me)}${c.auto ? ' (claimed when you opened it)' : ''}`,
      ),
      ' ',
      h('span', { class: 'muted small' }, 'Others see it; it is renewed while this card stays open. '),
      button('Release', 'claim-release', a.release),
    ];
  if (c)
    return [
      h('span', { class: 'chip chip-claim chip-claim-other', id: 'claim-holder' }, claimText(c, me)),
      ' ',
      a.decidable ? button('Take over', 'claim-take', () => a.claim({ takeOver: true })) : null,
    ];
  if (!a.decidable) return null;
  return [
    h('span', { class: 'muted small' }, 'Nobody is looking at this. '),
    button('Claim', 'claim-take', () => a.claim({})),
  ];
}

/** `step` asking first whether to decide over `c`, someone else's claim. */
function warnStep(c: ClaimView, step: ConfirmStep): ConfirmStep {
  return {
    ...step,
    title: `${c.name} is looking at this — decide anyway?`,
    body: [
      h(
        'p',
        { class: 'alert alert-warn', id: 'claim-warning' },
        `${c.name} has been looking at this request since ${clock(c.since)}. A claim does not stop you: `,
        h('strong', null, step.title),
      ),
      step.body,
    ],
  };
}

/** Claim or give back `requestId` over the API; the answer's claim goes into the cache. */
async function send(requestId: string, what: 'claim' | 'release', body: object): Promise<{ timeoutMs?: number }> {
  const path = `/api/v1/approvals/${encodeURIComponent(requestId)}/claim${what === 'release' ? '/release' : ''}`;
  const r = await api<{ claim?: ClaimView; timeoutMs?: number }>(path, body);
  if (r.claim) cache.set(requestId, r.claim);
  else cache.delete(requestId);
  return r;
}

/** Leaving the page gives the claim back, so nobody reads "looking at this" about a closed tab. */
function releaseOnLeave(requestId: string, holding: () => boolean): void {
  window.addEventListener('pagehide', () => {
    if (!holding()) return;
    const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
    void fetch(`/api/v1/approvals/${encodeURIComponent(requestId)}/claim/release`, {
      method: 'POST',
      keepalive: true,
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: '{}',
    }).catch(() => undefined);
  });
}

/** The claim panel of the card of `requestId`, for `me`. */
export function cardClaim(requestId: string, me: Me): CardClaim {
  start();
  const element = h('div', { id: 'claim', class: 'claim-line', 'aria-live': 'polite' });
  let packet: ReviewPacket | undefined;
  let timeoutMs = 600_000;
  /** Opening claims once; after a Release nothing is claimed behind the reviewer's back again. */
  let autoTried = false;
  let released = false;
  let renewing: number | undefined;
  let problem: string | undefined;

  const decidable = () => packet?.status === 'pending' && packet.allowedDecisions.length > 0;
  const mine = () => claimOf(requestId)?.reviewer === me.id;

  async function act(what: 'claim' | 'release', body: object): Promise<void> {
    if (what === 'release') released = true;
    try {
      timeoutMs = (await send(requestId, what, body)).timeoutMs ?? timeoutMs;
      problem = undefined;
    } catch (err) {
      problem = err instanceof ApiError ? err.message : `The ${what} could not be sent.`;
    }
    refresh();
  }

  // Renewed while the card stays open and in view; a hidden tab lets it lapse, and showing it again
  // claims it back if it is still free.
  function refresh(): void {
    window.clearInterval(renewing);
    renewing = undefined;
    if (mine() && decidable())
      renewing = window.setInterval(
        () => {
          if (document.visibilityState === 'visible' && mine() && decidable()) void act('claim', { auto: true });
        },
        Math.max(1000, Math.floor(timeoutMs / 3)),
      );
    if (!packet || packet.status !== 'pending') return put(element);
    const actions = {
      decidable: decidable(),
      claim: (o: object) => void act('claim', o),
      release: () => void act('release', {}),
    };
    put(
      element,
      claimLine(claimOf(requestId), me, actions),
      problem ? h('span', { class: 'field-error' }, ` ${problem}`) : null,
    );
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !released && decidable() && !claimOf(requestId))
      void act('claim', { auto: true });
  });
  releaseOnLeave(requestId, () => mine() && decidable());
  watchers.add(refresh);

  return {
    element,
    update(p) {
      packet = p;
      if (!autoTried && !released && decidable()) {
        autoTried = true;
        void act('claim', { auto: true });
      }
      refresh();
    },
    warn(step) {
      const c = claimOf(requestId);
      return c && c.reviewer !== me.id ? warnStep(c, step) : step;
    },
  };
}
