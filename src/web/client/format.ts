import { h } from './dom.ts';
import { describeHidden, findHiddenDeep } from './reveal.ts';
import type { Args, Json } from './types.ts';

/** A value as one line: strings bare, the rest as JSON. */
export function show(v: Json | undefined): string {
  if (v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `orderId: ORD-999 · amount: 850`, cut at `max` characters. */
export function argsLine(args: Args, max = 140): string {
  const line = Object.entries(args)
    .map(([k, v]) => `${k}: ${show(v)}`)
    .join(' · ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Pretty JSON of exactly what will run. */
export function exactJson(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

/** The tier as a badge. */
export function tierBadge(tier: string): HTMLElement {
  return h('span', { class: `chip tier tier-${tier}`, title: `tier: ${tier}` }, tier);
}

/** A request or thread status as a pill. */
export function statusPill(status: string): HTMLElement {
  return h('span', { class: `pill status-${status}` }, status);
}

/** The role needed, as a chip. */
export function roleChip(role: string): HTMLElement {
  return h('span', { class: 'chip role', title: 'required role' }, role);
}

/** The first characters of a long id or hash, whole in the tooltip. */
export function short(id: string, n = 12): HTMLElement {
  return h('code', { class: 'short', title: id }, id.length > n ? `${id.slice(0, n)}…` : id);
}

/** Who an actor (`reviewer:<id>`, `agent:<name>`, `system:<what>`) is, for people. */
export function actorName(actor: string, names: Record<string, string> = {}, myId = ''): string {
  if (actor === `reviewer:${myId}`) return 'you';
  return (
    names[actor] ??
    actor
      .replace(/^reviewer:/, 'reviewer ')
      .replace(/^agent:/, 'agent ')
      .replace(/^system:/, 'system ')
  );
}

/** A warning chip for a list item whose arguments hold hidden characters (the list may cut the line before them). */
export function hiddenChip(args: Args): HTMLElement | null {
  const hidden = findHiddenDeep(args);
  if (hidden.length === 0) return null;
  return h(
    'span',
    { class: 'chip chip-hidden', title: `The arguments contain hidden characters: ${describeHidden(hidden)}` },
    '⚠ hidden characters',
  );
}
