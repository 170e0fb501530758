import type { SessionKey, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';

/** A session's transcript as a thread's checkpoint keeps it: the main transcript and sub-agents' by subpath. */
export interface SavedTranscript {
  sessionId: string;
  main: SessionStoreEntry[];
  subs: Record<string, SessionStoreEntry[]>;
}

/** A turn's session store over the transcript the thread saved, and the transcript after the turn. */
export interface TurnTranscript {
  store: SessionStore;
  /** The saved transcript with what the turn appended (`sessionId`: the session the turn ran in). */
  after(sessionId: string): SavedTranscript;
}

/**
 * The SDK's `sessionStore` for one turn: the CLI resumes from the transcript Interlock saved with the
 * thread (not from a file on the machine that ran the last turn), and what the turn writes is kept
 * for the checkpoint — so any process on the same database continues the session.
 */
export function turnTranscript(saved: SavedTranscript | undefined): TurnTranscript {
  const main = [...(saved?.main ?? [])];
  const subs: Record<string, SessionStoreEntry[]> = Object.fromEntries(
    Object.entries(saved?.subs ?? {}).map(([k, v]) => [k, [...v]]),
  );
  const uuids = new Set([...main, ...Object.values(subs).flat()].flatMap((e) => (e.uuid ? [e.uuid] : [])));
  const listOf = (key: SessionKey) => (key.subpath ? (subs[key.subpath] ??= []) : main);
  return {
    store: {
      async append(key, entries) {
        const list = listOf(key);
        // Entries carry a uuid the SDK may deliver twice (a retried batch): keep each once.
        for (const e of entries) {
          if (e.uuid && uuids.has(e.uuid)) continue;
          if (e.uuid) uuids.add(e.uuid);
          list.push(e);
        }
      },
      async load(key) {
        if (!saved || key.sessionId !== saved.sessionId) return null;
        const list = key.subpath ? subs[key.subpath] : main;
        return list?.length ? list : null;
      },
    },
    after: (sessionId) => ({ sessionId, main, subs }),
  };
}
