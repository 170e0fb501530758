import { Hono } from 'hono';
import { NotFoundError } from '../../core/index.ts';
import { reviewerThreadView, threadView } from '../views.ts';
import { auditRawView, visibleThread } from '../access.ts';
import { requireOperator } from '../auth.ts';
import { NotImplementedError } from '../errors.ts';
import { readJson, readQuery } from '../input.ts';
import { startThreadBody, threadQuery } from '../schemas.ts';
import type { AppEnv, RouteDeps, ThreadsAdapter } from '../types.ts';

function adapterOrThrow(deps: RouteDeps): ThreadsAdapter {
  if (!deps.threads) {
    throw new NotImplementedError(
      'This server runs no agents: it was started without a threads adapter. Pass `threads` to createApp to start and abort threads over HTTP.',
    );
  }
  return deps.threads;
}

/**
 * Threads: operators start and abort agent runs through the pluggable
 * {@link ThreadsAdapter} (501 without one); reading a thread falls back to the store.
 */
export function threadRoutes(deps: RouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post('/threads', async (c) => {
    requireOperator(c.var.principal, 'start threads');
    const threads = adapterOrThrow(deps);
    const body = await readJson(c, startThreadBody, 'thread');
    const started = await threads.start(body.agent, body.input, body.threadId);
    return c.json({ threadId: started.threadId, status: started.status }, 202);
  });

  app.get('/threads/:id', async (c) => {
    const id = c.req.param('id');
    const p = c.var.principal;
    // Personal data is masked for everyone; operators may ask for the stored text, and that read is audited.
    const raw = readQuery(c, threadQuery).raw === '1';
    if (raw) requireOperator(p, 'read a thread unmasked (raw=1)');
    if (!deps.threads) return c.json(threadView(await visibleThread(deps, p, id)));
    // A thread just started may not be in the store yet; operators ask the adapter directly.
    if (!p.operator) await visibleThread(deps, p, id);
    const view = await deps.threads.get(id);
    if (!view) throw new NotFoundError('thread', id);
    if (raw) await auditRawView(deps, p, id, 'api');
    return c.json(reviewerThreadView(view, p, { raw }));
  });

  app.post('/threads/:id/abort', async (c) => {
    requireOperator(c.var.principal, 'abort threads');
    const threads = adapterOrThrow(deps);
    const id = c.req.param('id');
    return c.json(await threads.abort(id));
  });

  return app;
}
