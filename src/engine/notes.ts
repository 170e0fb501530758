import { newId, NotFoundError, ValidationError, type Reviewer } from '../core/index.ts';
import type { NoteRow } from '../store/types.ts';
import { auditEvent } from './audit-events.ts';
import type { EngineContext } from './context.ts';
import { commitWithEvents } from './commit-events.ts';

/** The longest internal note, in characters. */
export const MAX_NOTE_LENGTH = 2000;

/**
 * A reviewer's internal note on a request. For reviewers only: kept apart from decisions, never in
 * a decision's message, never sent to the agent or the model.
 */
export interface Note {
  id: string;
  requestId: string;
  /** The author's reviewer id. */
  author: string;
  authorName: string;
  text: string;
  /** Epoch ms. */
  createdAt: number;
}

/** Internal notes on requests: each added with its audit event (`note_added`) in one transaction. */
export interface NoteOps {
  /**
   * Add a note by `author` to the request (any status: a note after the decision is still worth
   * keeping). `text` is trimmed; blank or longer than {@link MAX_NOTE_LENGTH} is refused (`invalid_input`).
   */
  add(requestId: string, author: Reviewer, text: string): Promise<Note>;
  /** The request's notes, oldest first. */
  list(requestId: string): Promise<Note[]>;
}

/** The engine's note operations over `ctx`. */
export function noteOps(ctx: EngineContext): NoteOps {
  return {
    async add(requestId, author, text) {
      const body = typeof text === 'string' ? text.trim() : '';
      if (!body || body.length > MAX_NOTE_LENGTH)
        throw new ValidationError(
          body
            ? `A note holds at most ${MAX_NOTE_LENGTH} characters (this one has ${body.length}); shorten it or split it in two.`
            : 'A note needs "text": what you want other reviewers to know (it is never sent to the agent).',
          [{ path: 'text', message: `1 to ${MAX_NOTE_LENGTH} characters` }],
        );
      const req = await ctx.store.getRequest(requestId);
      if (!req) throw new NotFoundError('approval_request', requestId);
      const now = ctx.now();
      const note: NoteRow = {
        id: newId<string>('note'),
        requestId,
        author: author.id,
        authorName: author.name ?? author.id,
        text: body,
        createdAt: now,
      };
      await commitWithEvents(
        ctx,
        async (tx) => {
          await tx.insertNote(note);
          await tx.appendAudit(
            [
              auditEvent(
                'note_added',
                `reviewer:${author.id}`,
                { noteId: note.id, text: body },
                { threadId: req.threadId, requestId },
              ),
            ],
            now,
          );
        },
        () => [{ type: 'note.added', requestId, threadId: req.threadId, noteId: note.id }],
      );
      return note;
    },
    list: (requestId) => ctx.store.listNotes(requestId),
  };
}
