/**
 * Progress a client is sent under its own token must only increase (the MCP spec). The gateway sends
 * its own "waiting for a reviewer" ticks while a call is held, then relays the upstream's progress of
 * the forwarded call, which counts from its own start: those are shifted past the ticks already sent.
 */
const sent = new WeakMap<object, number>();

/** Record one more tick of the gateway's own for this request (its handler `extra`); returns its value. */
export function nextTick(extra: object): number {
  const n = (sent.get(extra) ?? 0) + 1;
  sent.set(extra, n);
  return n;
}

/** An upstream progress value as the client sees it: after every tick the gateway sent it before. */
export function shifted(extra: object, p: { progress: number; total?: number }): { progress: number; total?: number } {
  const base = sent.get(extra) ?? 0;
  return { progress: base + p.progress, ...(p.total === undefined ? {} : { total: base + p.total }) };
}
