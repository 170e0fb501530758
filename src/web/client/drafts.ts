/**
 * What a reviewer typed and has not sent yet — a rejection's message, an answer, an edit's
 * arguments — kept per request in the tab's sessionStorage, so that closing the panel (Escape,
 * Cancel), the dialog, or the card being drawn again by a live update (another reviewer's vote)
 * does not lose it. A draft belongs to one request and its exact action (its action hash: an edit
 * of other arguments is another request); it is cleared once a decision on the request succeeds.
 */

/** The panels whose text is kept. */
export type DraftKind = 'reject' | 'respond' | 'edit';

const KINDS: readonly DraftKind[] = ['reject', 'respond', 'edit'];

/** One request's drafts. */
export interface Drafts {
  /** The kept text of a panel, if any. */
  read(kind: DraftKind): string | undefined;
  /** Keep `value` (an empty string or undefined drops the draft). */
  write(kind: DraftKind, value: string | undefined): void;
  /** Drop every draft of the request (after a decision on it succeeded). */
  clear(): void;
}

/** The drafts of request `requestId` with action hash `actionHash`. */
export function draftsFor(requestId: string, actionHash: string): Drafts {
  const key = (kind: DraftKind) => `interlock.draft:${requestId}:${actionHash}:${kind}`;
  // Storage can be unavailable (disabled, full, a private window's quota): a draft is a convenience,
  // never a reason for the card to fail, so every access falls back to "nothing kept".
  const store = (): Storage | undefined => {
    try {
      return window.sessionStorage;
    } catch {
      return undefined;
    }
  };
  return {
    read(kind) {
      try {
        return store()?.getItem(key(kind)) ?? undefined;
      } catch {
        return undefined;
      }
    },
    write(kind, value) {
      try {
        if (value) store()?.setItem(key(kind), value);
        else store()?.removeItem(key(kind));
      } catch {
        // Not kept; the text stays in the open panel.
      }
    },
    clear() {
      for (const kind of KINDS) this.write(kind, undefined);
    },
  };
}
