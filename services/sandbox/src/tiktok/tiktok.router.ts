import { Router, type NextFunction, type Request, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { ttError } from './tt-errors.ts';
import { registerTikTokOAuth } from './tt-oauth.routes.ts';
import { registerTikTokPublish } from './tt-publish.routes.ts';
import { registerTikTokList } from './tt-list.routes.ts';
import { registerTikTokReads } from './tt-read.routes.ts';

/** `/tiktok`: open.tiktokapis.com (Open API v2) plus the authorize page and the upload host. */
export function tiktokRouter(ctx: SandboxContext): Router {
  const router = Router({ strict: true });
  registerTikTokOAuth(router, ctx);
  registerTikTokPublish(router, ctx);
  registerTikTokReads(router, ctx);
  registerTikTokList(router, ctx);
  router.use((_req: Request, res: Response) =>
    ttError(res, 404, 'invalid_params', 'The requested path does not exist.'),
  );
  router.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    ttError(res, 500, 'internal_error', 'Something went wrong. Please try again later.'),
  );
  return router;
}
