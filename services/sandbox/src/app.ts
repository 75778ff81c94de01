import express, { type Express } from 'express';
import { createContext, type SandboxOptions } from './context.ts';
import { controlRouter } from './control/control.routes.ts';
import { graphRouter } from './facebook/graph.router.ts';
import { outcomeFaults } from './http/outcome-faults.ts';
import { linkedinRouter } from './linkedin/linkedin.router.ts';
import { tiktokRouter } from './tiktok/tiktok.router.ts';
import { xRouter } from './x/x.router.ts';

export type { SandboxOptions } from './context.ts';

/**
 * The network sandbox (docs/api-conventions.md, "The network sandbox"): each network's real HTTP
 * API under its prefix, plus the `/__sandbox` control API. No listen here, so tests mount it
 * in-process.
 */
export function createSandboxApp(options: SandboxOptions): Express {
  const ctx = createContext(options);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  app.use('/__sandbox', controlRouter(ctx.state));
  app.use(outcomeFaults(ctx.state));
  app.use('/facebook', graphRouter(ctx));
  app.use('/x', xRouter(ctx));
  app.use('/linkedin', linkedinRouter(ctx));
  app.use('/tiktok', tiktokRouter(ctx));
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  return app;
}
