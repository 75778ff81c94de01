import { Router, type NextFunction, type Request, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { registerLinkedInComments } from './li-comments.routes.ts';
import { registerLinkedInDocuments } from './li-documents.routes.ts';
import { liError } from './li-errors.ts';
import { registerLinkedInMedia } from './li-media.routes.ts';
import { registerLinkedInOAuth } from './li-oauth.routes.ts';
import { registerLinkedInPostReads } from './li-posts-read.routes.ts';
import { registerLinkedInPosts } from './li-posts.routes.ts';
import { registerLinkedInReads } from './li-read.routes.ts';

/** `/linkedin`: api.linkedin.com (`/rest/*`, `/v2/userinfo`) plus www.linkedin.com OAuth and uploads. */
export function linkedinRouter(ctx: SandboxContext): Router {
  const router = Router();
  registerLinkedInOAuth(router, ctx);
  registerLinkedInMedia(router, ctx);
  registerLinkedInDocuments(router, ctx);
  registerLinkedInPosts(router, ctx);
  registerLinkedInPostReads(router, ctx);
  registerLinkedInComments(router, ctx);
  registerLinkedInReads(router, ctx);
  router.use((_req: Request, res: Response) => liError(res, 404, 'Resource not found.', 'NOT_FOUND'));
  router.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    liError(res, 500, 'Internal Server Error'),
  );
  return router;
}
