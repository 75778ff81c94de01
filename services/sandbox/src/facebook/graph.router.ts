import { Router, json, urlencoded, type NextFunction, type Request, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { registerGraphComments } from './comments.routes.ts';
import { graphError } from './graph-errors.ts';
import { usageHeaders } from './graph-auth.ts';
import { registerInsights } from './insights.routes.ts';
import { registerInstagram } from './instagram.routes.ts';
import { registerObjects } from './objects.routes.ts';
import { registerGraphOAuth } from './oauth.routes.ts';
import { registerPages } from './pages.routes.ts';
import { registerReelUpload, registerReels } from './reels.routes.ts';
import { registerTimelines } from './timeline.routes.ts';

const VERSION = /^v\d+\.\d+$/;

/**
 * `/facebook`: graph.facebook.com (Pages and Instagram with Facebook Login) plus the
 * www.facebook.com login dialog, under any `/vNN.0` version segment, and the reel upload host
 * (`/facebook/video-upload/...`).
 */
export function graphRouter(ctx: SandboxContext): Router {
  const outer = Router();
  outer.use(json({ limit: '5mb' }), urlencoded({ extended: false, limit: '5mb' }), usageHeaders());
  const versioned = Router({ mergeParams: true });
  registerGraphOAuth(versioned, ctx);
  registerInstagram(versioned, ctx);
  registerPages(versioned, ctx);
  registerReels(versioned, ctx);
  registerTimelines(versioned, ctx);
  registerInsights(versioned, ctx);
  registerGraphComments(versioned, ctx);
  registerObjects(versioned, ctx);

  // rupload.facebook.com's path, outside the versioned Graph paths.
  registerReelUpload(outer, ctx);
  outer.use(
    '/:version',
    (req: Request, res: Response, next: NextFunction) => {
      const version = (req.params as Record<string, string>).version ?? '';
      if (!VERSION.test(version))
        return graphError(res, 400, { message: `Unknown path components: /${version}`, code: 2500 });
      res.setHeader('facebook-api-version', version);
      next();
    },
    versioned,
  );

  outer.use((_req: Request, res: Response) =>
    graphError(res, 400, {
      message: 'Unsupported request - method type: unknown path',
      type: 'GraphMethodException',
      code: 100,
    }),
  );
  outer.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    void error;
    graphError(res, 500, { message: 'An unknown error has occurred.', code: 1, is_transient: true });
  });
  return outer;
}
