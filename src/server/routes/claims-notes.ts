import { Hono } from 'hono';
import { z } from 'zod';
import type { Claim, Note } from '../../engine/index.ts';
import { MAX_NOTE_LENGTH } from '../../engine/index.ts';
import { InterlockError } from '../../core/index.ts';
import { visibleRequest } from '../access.ts';
import { readJson } from '../input.ts';
import type { AppEnv, RouteDeps } from '../types.ts';

/** Refusals of a request that takes no more decisions (and so no claim). */
const FINISHED = new Set(['already_resolved', 'request_expired']);

/** Body of POST /api/v1/approvals/:id/claim. */
export const claimBody = z.strictObject({
  auto: z.boolean().optional().describe('Taken by opening the card (shown as such), not by the Claim button.'),
  takeOver: z
    .boolean()
    .optional()
    .describe("Take over another reviewer's live claim (default: leave it and say whose it is)."),
});

/** Body of POST /api/v1/approvals/:id/notes. */
export const noteBody = z.strictObject({
  text: z
    .string()
    .max(MAX_NOTE_LENGTH)
    .describe('The note, for reviewers only: never part of the decision or of anything the agent reads.'),
});

const iso = (ms: number) => new Date(ms).toISOString();

/** A claim as the API shows it (ISO times). */
export function claimView(c: Claim) {
  return {
    requestId: c.requestId,
    reviewer: c.reviewer,
    name: c.name,
    since: iso(c.since),
    expiresAt: iso(c.expiresAt),
    auto: c.auto,
  };
}

/** A note as the API shows it. */
export function noteView(n: Note) {
  return {
    id: n.id,
    requestId: n.requestId,
    author: n.author,
    authorName: n.authorName,
    text: n.text,
    createdAt: iso(n.createdAt),
    internal: true as const,
  };
}

/**
 * Claims ("Dana is looking at this") and internal notes on the requests a reviewer may see. Both are
 * the engine's (src/engine/claims.ts, notes.ts); here only who may read or write them: the request's
 * readers (its role, or operators), and for a claim whoever may decide it (the engine checks).
 */
export function claimNoteRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();
  const reviewer = (p: AppEnv['Variables']['principal']) => ({ id: p.id, name: p.name, roles: p.roles });

  app.get('/claims', async (c) => {
    const p = c.var.principal;
    const items = await interlock.claims.list(p.operator ? undefined : p.roles);
    return c.json({ items: items.map(claimView), timeoutMs: interlock.claims.timeoutMs });
  });

  app.get('/approvals/:id/claim', async (c) => {
    const req = await visibleRequest(deps, c.var.principal, c.req.param('id'));
    const claim = await interlock.claims.get(req.id);
    return c.json({ claim: claim ? claimView(claim) : null, timeoutMs: interlock.claims.timeoutMs });
  });

  app.post('/approvals/:id/claim', async (c) => {
    const p = c.var.principal;
    const req = await visibleRequest(deps, p, c.req.param('id'));
    const body = await readJson(c, claimBody, 'claim');
    try {
      const r = await interlock.claims.claim(req.id, reviewer(p), body);
      return c.json({ claimed: r.claimed, claim: claimView(r.claim), timeoutMs: interlock.claims.timeoutMs });
    } catch (err) {
      // The card's own claim (on open, or renewing) racing a decision made elsewhere: nothing is left to
      // claim, which the card's live update shows. Not an error; a claim asked for by hand still is.
      if (body.auto && err instanceof InterlockError && FINISHED.has(err.code))
        return c.json({ claimed: false, claim: null, timeoutMs: interlock.claims.timeoutMs });
      throw err;
    }
  });

  app.post('/approvals/:id/claim/release', async (c) => {
    const p = c.var.principal;
    const req = await visibleRequest(deps, p, c.req.param('id'));
    return c.json({ released: await interlock.claims.release(req.id, p.id) });
  });

  app.get('/approvals/:id/notes', async (c) => {
    const req = await visibleRequest(deps, c.var.principal, c.req.param('id'));
    return c.json({ items: (await interlock.notes.list(req.id)).map(noteView) });
  });

  app.post('/approvals/:id/notes', async (c) => {
    const p = c.var.principal;
    const req = await visibleRequest(deps, p, c.req.param('id'));
    const body = await readJson(c, noteBody, 'note');
    return c.json(noteView(await interlock.notes.add(req.id, reviewer(p), body.text)), 201);
  });

  return app;
}
