import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/**
 * The pages' Content-Security-Policy: scripts only from this origin (the build has no inline
 * script), no plugins, no framing, API calls to this origin only (`/api`, `/auth`). Styles may be
 * inline (the component library sets style attributes); images may come from anywhere, since
 * media previews are served from the API's public media address.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths that belong to the service, never to the pages' fallback. */
const SERVICE_PATHS = /^\/(api|auth|\.well-known|health|ready)(\/|$)/;

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
}

/**
 * The built pages (Vite's dist): hashed assets cached for a year, index.html never cached, and
 * every other GET that is not the service's own answered with index.html (the pages route in the
 * browser). Without a build (tests of the API only) nothing is served.
 */
export function webApp(webDir: string): Router {
  const router = express.Router();
  const index = path.join(webDir, 'index.html');
  if (!existsSync(index)) return router;
  router.use(
    '/assets',
    express.static(path.join(webDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: false,
      setHeaders: (res) => securityHeaders(res),
    }),
  );
  router.get(/.*/, (req: Request, res: Response, next: NextFunction) => {
    if (SERVICE_PATHS.test(req.path)) return next();
    securityHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (error) => error && next(error));
  });
  return router;
}
