import { h } from './dom.ts';
import type { Live } from './live.ts';
import type { LiveEvent, Me } from './types.ts';

/**
 * Desktop notifications of new requests for the reviewer's roles, opted into with a button in the
 * top bar (the browser asks for permission then, never on its own). A notification is shown only
 * while the page is hidden or not focused — a reviewer looking at the queue sees the row arrive —
 * and clicking it brings this tab forward on the request's card. The choice is kept per browser
 * (localStorage); the browser's own permission can still say no.
 */

const KEY = 'interlock.notifications';

function optedIn(): boolean {
  try {
    return window.localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

function setOptIn(on: boolean): void {
  try {
    if (on) window.localStorage.setItem(KEY, 'on');
    else window.localStorage.removeItem(KEY);
  } catch {
    // Kept for this page only.
  }
}

/** Whether the reviewer would miss the arrival on screen: the tab is hidden or the window has no focus. */
function away(): boolean {
  return document.visibilityState === 'hidden' || !document.hasFocus();
}

/** The words of the top-bar button, by state. */
function describe(button: HTMLButtonElement): void {
  const perm = Notification.permission;
  const on = optedIn() && perm === 'granted';
  button.setAttribute('aria-pressed', String(on));
  button.textContent = on ? 'Notifications on' : 'Notify me';
  button.title =
    perm === 'denied'
      ? 'This browser blocks notifications from this site: allow them in its site settings first.'
      : on
        ? 'New requests for your roles show as desktop notifications while this tab is in the background. Click to turn off.'
        : 'Show new requests for your roles as desktop notifications while this tab is in the background.';
  button.disabled = perm === 'denied';
}

/** Show one new request, if the reviewer opted in and is looking elsewhere. */
function notify(e: LiveEvent, myself: Me): void {
  if (!optedIn() || Notification.permission !== 'granted' || !e.requestId || !away()) return;
  // The stream already carries only what this reviewer may see; notify for the roles they hold.
  if (e.role && !myself.roles.includes(e.role)) return;
  const href = `/approvals/${encodeURIComponent(e.requestId)}`;
  const n = new Notification(`New request: ${e.tool ?? 'a tool call'}`, {
    body: e.role ? `Needs the ${e.role} role. Click to review it.` : 'Click to review it.',
    tag: e.requestId,
  });
  n.addEventListener('click', () => {
    window.focus();
    n.close();
    window.location.assign(href);
  });
}

/**
 * Put the opt-in button in the top bar and notify of new requests from `l`. Nothing happens in a
 * browser without the Notification API.
 */
export function startNotifications(l: Live, myself: Me): void {
  if (!('Notification' in window)) return;
  const button = h('button', { type: 'button', class: 'btn btn-quiet', id: 'notify-toggle' });
  describe(button);
  button.addEventListener('click', () => {
    if (optedIn() && Notification.permission === 'granted') {
      setOptIn(false);
      describe(button);
      return;
    }
    void Notification.requestPermission().then((perm) => {
      setOptIn(perm === 'granted');
      describe(button);
    });
  });
  document.querySelector('.who')?.prepend(button);
  l.on((e) => {
    if (e.type === 'approval.created') notify(e, myself);
  });
}
