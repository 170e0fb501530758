/** Times: time left, countdowns that tick every second, readable dates. */

/** "2h 05m", "4m 12s", "12s"; "expired" at or below zero. */
export function timeLeft(ms: number): string {
  if (ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  if (d > 0) return `${d}d ${hh}h`;
  if (hh > 0) return `${hh}h ${String(mm).padStart(2, '0')}m`;
  if (mm > 0) return `${mm}m ${String(ss).padStart(2, '0')}s`;
  return `${ss}s`;
}

/** A local date and time, e.g. "14 May, 14:32:05". */
export function when(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** "3 min ago", "just now". */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

interface Countdown {
  el: HTMLElement;
  at: number;
  onExpire: (() => void) | undefined;
  expired: boolean;
}

const countdowns = new Set<Countdown>();
let timer: number | undefined;

function tick(): void {
  const now = Date.now();
  for (const c of countdowns) {
    if (!c.el.isConnected) {
      countdowns.delete(c);
      continue;
    }
    render(c, now);
  }
  if (countdowns.size === 0) {
    clearInterval(timer);
    timer = undefined;
  }
}

function render(c: Countdown, now: number): void {
  const left = c.at - now;
  c.el.textContent = timeLeft(left);
  c.el.dataset.urgency = left <= 0 ? 'expired' : left < 5 * 60_000 ? 'soon' : 'ok';
  if (left <= 0 && !c.expired) {
    c.expired = true;
    c.onExpire?.();
  }
}

/**
 * Keep `el`'s text at the time left until `expiresAt`, every second, with
 * `data-urgency` = ok | soon (under 5 min) | expired. Stops when `el` leaves the page.
 */
export function countdown(el: HTMLElement, expiresAt: string, onExpire?: () => void): HTMLElement {
  const c: Countdown = { el, at: Date.parse(expiresAt), onExpire, expired: Date.parse(expiresAt) <= Date.now() };
  render(c, Date.now());
  countdowns.add(c);
  timer ??= window.setInterval(tick, 1000);
  return el;
}
