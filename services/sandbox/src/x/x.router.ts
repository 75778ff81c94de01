import { Router, type NextFunction, type Request, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { registerXAnalytics } from './x-analytics.routes.ts';
import { registerXApi } from './x-api.routes.ts';
import { problem } from './x-errors.ts';
import { registerXMedia } from './x-media.routes.ts';
import { registerXOAuth } from './x-oauth.routes.ts';
import { registerXTimeline } from './x-timeline.routes.ts';

/** `/x`: api.x.com (v2 posts, media, OAuth 2.0 token endpoints) plus x.com's authorize page. */
export function xRouter(ctx: SandboxContext): Router {
  const router = Router();
  registerXOAuth(router, ctx);
  registerXMedia(router, ctx);
  registerXAnalytics(router, ctx);
  registerXTimeline(router, ctx);
  registerXApi(router, ctx);
  router.use((_req: Request, res: Response) =>
    problem(
      res,
      404,
      'Not Found Error',
      'The requested resource does not exist.',
      'https://api.x.com/2/problems/resource-not-found',
    ),
  );
  router.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    problem(res, 500, 'Internal Server Error', 'Internal Server Error'),
  );
  return router;
}
