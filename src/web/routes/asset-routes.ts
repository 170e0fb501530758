import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../server/types.ts';
import type { Asset } from '../assets.ts';
import { createAssets } from '../assets.ts';

function send(c: Context, a: Asset | undefined): Response {
  if (!a) return c.text('Not found', 404);
  // Revalidate every time: a 304 costs one small round-trip, and a deploy is picked up at once.
  c.header('Cache-Control', 'no-cache');
  c.header('ETag', a.etag);
  if (c.req.header('if-none-match') === a.etag) return c.body(null, 304);
  return c.body(a.body, 200, { 'Content-Type': a.contentType });
}

/** GET /ui/js/<name>.ts (browser modules, served as JavaScript) and /ui/<name>.css|svg. No authentication: they hold no data. */
export function assetRoutes(): Hono<AppEnv> {
  const assets = createAssets();
  const app = new Hono<AppEnv>();
  app.get('/ui/js/:name', (c) => send(c, assets.script(c.req.param('name'))));
  app.get('/ui/:name', (c) => send(c, assets.file(c.req.param('name'))));
  return app;
}
