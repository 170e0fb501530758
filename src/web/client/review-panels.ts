import type { confirmStep } from './confirm.ts';
import { diffArgs, diffTable } from './diff.ts';
import { byId, h, put, type Child } from './dom.ts';
import type { Drafts } from './drafts.ts';
import { schemaForm, type SchemaForm } from './schema-form.ts';
import { rejectReasonField } from './reject-reasons.ts';
import type { Args, DecisionAnswer, ReviewPacket } from './types.ts';

/**
 * The review card's decision panels (edit, reject, respond): built from the packet and handed
 * what they may do, so the page keeps its state in one place (review-page.ts).
 */

/** A decision as the card sends it. */
export type DecisionBody = {
  type: 'approve' | 'edit' | 'reject' | 'respond';
  args?: Args;
  message?: string;
  trust?: boolean;
};
/** What the card's banner says. */
export type Banner = { kind: 'ok' | 'warn' | 'error'; text: string; links?: Array<{ href: string; label: string }> };

/** The confirm dialog's content. */
export type ConfirmStep = Parameters<typeof confirmStep>[0];

/** What a panel reads and does through the page. */
export interface PanelContext {
  /** A decision is being sent: buttons stay disabled. */
  busy: () => boolean;
  /** Close the panel. */
  cancel: () => void;
  /** The request's unsent text, kept across closing the panel and live re-renders. */
  drafts: Drafts;
}

/** The edit draft's arguments, if one is kept and still reads as an object. */
function draftArgs(drafts: Drafts): Args | undefined {
  try {
    const v: unknown = JSON.parse(drafts.read('edit') ?? 'null');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Args) : undefined;
  } catch {
    return undefined;
  }
}

/** The edit panel: a form from the tool's schema, the difference from the proposal, and a submit once something changed. */
export function editPanel(
  p: ReviewPacket,
  ctx: PanelContext & { onForm: (form: SchemaForm) => void; submit: () => void },
): HTMLElement {
  const diffBox = h('div', { id: 'edit-diff', 'aria-live': 'polite' });
  const submit = h(
    'button',
    { type: 'submit', class: 'btn btn-primary', id: 'edit-submit', disabled: true },
    'Review edit…',
  );
  const update = () => {
    const { args, problems } = editForm.read();
    const changes = diffArgs(p.args, args);
    editForm.showIssues(problems);
    ctx.drafts.write('edit', changes.length ? JSON.stringify(args) : undefined);
    put(diffBox, diffTable(changes));
    submit.disabled = ctx.busy() || problems.length > 0 || changes.length === 0;
    submit.textContent = changes.length
      ? `Review edit (${changes.length} change${changes.length === 1 ? '' : 's'})…`
      : 'Review edit…';
  };
  // The form starts from the reviewer's unsent edit, if any; the difference is always from the proposal.
  const editForm = schemaForm(p.argsSchema, draftArgs(ctx.drafts) ?? p.args, update);
  ctx.onForm(editForm);
  const form = h(
    'form',
    { class: 'panel', id: 'panel-edit', 'aria-labelledby': 'h-edit', novalidate: true },
    h('h3', { id: 'h-edit' }, 'Edit the arguments'),
    h(
      'p',
      { class: 'muted small' },
      'The edited call is checked against the tool’s schema and the policy again. It can keep or raise the tier, never lower it.',
    ),
    editForm.element,
    h('h4', null, 'Difference from the proposal'),
    diffBox,
    h(
      'div',
      { class: 'panel-actions' },
      submit,
      h('button', { type: 'button', class: 'btn', onClick: ctx.cancel }, 'Cancel'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.submit();
  });
  queueMicrotask(update);
  return form;
}

/** The confirm step of a reject or an answer: what will not run, and the message the agent gets. */
function messageStep(type: 'reject' | 'respond', tool: string, message: string): ConfirmStep {
  return type === 'reject'
    ? {
        title: 'Reject this action?',
        body: [
          h('p', null, h('code', null, tool), ' will not run.'),
          message
            ? h('p', null, 'Message to the agent: ', h('q', { class: 'user-text' }, message))
            : h('p', { class: 'muted' }, 'No message.'),
        ],
        confirm: 'Reject',
        danger: true,
      }
    : {
        title: 'Send this answer?',
        body: [
          h('p', null, h('code', null, tool), ' will not run. The agent receives:'),
          h('pre', { class: 'mono user-text' }, message),
        ],
        confirm: 'Send answer',
      };
}

/**
 * The reject or respond panel: the message, checked (an answer is required; a reject reason where the
 * rule requires one, with its canned choices: reject-reasons.ts), sent behind a confirm step.
 */
export function messagePanel(
  type: 'reject' | 'respond',
  p: Pick<ReviewPacket, 'tool' | 'rejectReasons'>,
  ctx: PanelContext & { decide: (step: ConfirmStep, body: DecisionBody) => void },
): HTMLElement {
  const id = `${type}-message`;
  const reasons = type === 'reject' ? rejectReasonField(p) : undefined;
  const text = h('textarea', {
    id,
    rows: 3,
    'aria-required': type === 'respond' ? 'true' : null,
    'aria-describedby': `${id}-hint`,
  });
  text.value = ctx.drafts.read(type) ?? '';
  text.addEventListener('input', () => ctx.drafts.write(type, text.value));
  const form = h(
    'form',
    { class: 'panel', id: `panel-${type}`, 'aria-labelledby': `h-${type}`, novalidate: true },
    h('h3', { id: `h-${type}` }, type === 'reject' ? 'Reject' : 'Respond instead of running the tool'),
    reasons?.element,
    h('label', { for: id }, type === 'reject' ? (reasons?.textLabel ?? 'Message to the agent (optional)') : 'Answer'),
    text,
    h(
      'p',
      { class: 'field-hint', id: `${id}-hint` },
      type === 'reject'
        ? 'The action does not run. The agent gets the rejection and your message, and re-plans.'
        : 'The tool does not run. The agent receives this text as the tool’s result.',
    ),
    h('p', { class: 'field-error', id: `${id}-error` }),
    h(
      'div',
      { class: 'panel-actions' },
      h(
        'button',
        {
          type: 'submit',
          class: `btn ${type === 'reject' ? 'btn-danger' : 'btn-primary'}`,
          id: `${type}-submit`,
          disabled: ctx.busy(),
        },
        type === 'reject' ? 'Reject…' : 'Send answer…',
      ),
      h('button', { type: 'button', class: 'btn', onClick: ctx.cancel }, 'Cancel'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const message = reasons ? reasons.compose(text.value.trim(), byId(`${id}-error`)) : text.value.trim();
    if (message === undefined) return;
    if (type === 'respond' && message === '') {
      byId(`${id}-error`).textContent = 'Write the answer the agent should receive.';
      text.setAttribute('aria-invalid', 'true');
      text.focus();
      return;
    }
    ctx.decide(
      messageStep(type, p.tool, message),
      type === 'reject' ? { type, ...(message ? { message } : {}) } : { type, message },
    );
  });
  return form;
}

/** What the reviewer did, in the words of the answer; where it stands from then on is the status statement's. */
export function decidedText(body: DecisionBody, r: DecisionAnswer): string {
  const n = r.request;
  switch (r.outcome) {
    case 'authorized':
      return body.type === 'edit' ? 'Edit approved.' : 'Approved.';
    case 'pending':
      return `Your approval is counted (${n.approvalsReceived} of ${n.approvalsRequired}); it needs ${n.approvalsRequired - n.approvalsReceived} more.`;
    case 'rejected':
      return 'Rejected. The agent has your message.';
    case 'responded':
      return 'Answer sent to the agent.';
    case 'superseded':
      return 'Edit sent for a stricter review.';
  }
}

/** Past its expiry by this page's clock: the server would refuse, so nothing is sent. */
export function expired(p: ReviewPacket): boolean {
  return Date.parse(p.expiresAt) <= Date.now();
}

/** The card's banner: what just happened, with links onward. */
export function bannerEl(banner: Banner | undefined): Child {
  if (!banner) return null;
  return h(
    'div',
    {
      class: `alert alert-${banner.kind}`,
      role: banner.kind === 'ok' ? 'status' : 'alert',
      id: 'banner',
      tabindex: '-1',
    },
    h('p', null, banner.text),
    banner.links?.length
      ? h(
          'p',
          { class: 'alert-links' },
          banner.links.map((l) => h('a', { href: l.href, class: 'btn btn-small' }, l.label)),
        )
      : null,
  );
}

export function keyHint(k: string): HTMLElement {
  return h('kbd', { 'aria-hidden': 'true' }, k);
}
