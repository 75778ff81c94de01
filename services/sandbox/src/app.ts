import express, { type Express } from 'express';
import { createContext, type SandboxOptions } from './context.ts';
import { controlRouter } from './control/control.routes.ts';
import { graphRouter } from './facebook/graph.router.ts';
import { outcomeFaults } from './http/outcome-faults.ts';
import { linkedinRouter } from './linkedin/linkedin.router.ts';
import { stripeRouters } from './stripe/stripe.router.ts';
import { tiktokRouter } from './tiktok/tiktok.router.ts';
import { xRouter } from './x/x.router.ts';

export type { SandboxOptions } from './context.ts';
export type { StripeSandboxOptions } from './stripe/stripe-account.ts';

/**
 * The network sandbox (docs/api-conventions.md, "The network sandbox"): each network's real HTTP
 * API under its prefix, Stripe's API at `/v1` with its hosted pages under `/stripe` (when configured),
 * plus the `/__sandbox` control API. No listen here, so tests mount it in-process.
 */
export function createSandboxApp(options: SandboxOptions): Express {
  const ctx = createContext(options);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  const stripe = stripeRouters(ctx.stripe);
  app.use('/__sandbox/stripe', stripe.control);
  app.use('/__sandbox', controlRouter(ctx.state));
  app.use(outcomeFaults(ctx.state));
  app.use('/facebook', graphRouter(ctx));
  app.use('/x', xRouter(ctx));
  app.use('/linkedin', linkedinRouter(ctx));
  app.use('/tiktok', tiktokRouter(ctx));
  app.use('/v1', stripe.api);
  app.use('/stripe', stripe.pages);
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  return app;
}
