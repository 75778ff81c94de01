import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId } from '../state/ids.ts';
import { tokenError } from './graph-errors.ts';

/** Graph takes parameters from the query string, a form body or a JSON body alike. */
export function graphParams(req: Request): Record<string, string> {
  const merged: Record<string, string> = {};
  const sources = [req.query as Record<string, unknown>, (req.body ?? {}) as Record<string, unknown>];
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined) continue;
      merged[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return merged;
}

export function graphToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  const fromHeader = header ? /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header)?.[1] : undefined;
  return fromHeader ?? graphParams(req).access_token;
}

/** The Facebook user, Page and Instagram account a subject stands for (stable for BYOK tokens). */
export const userIdOf = (subject: string) =>
  subject.startsWith('fbuser:') ? subject.slice(7) : derivedId(`${subject}:user`, 15, '1');
export const pageIdOf = (subject: string) =>
  subject.startsWith('page:') ? subject.slice(5) : derivedId(`${userIdOf(subject)}:page`, 15, '1');
export const igUserIdOf = (subject: string) => derivedId(`${pageIdOf(subject)}:ig`, 17, '1784');

/** A BYOK user token starting with this manages 30 Pages, the one linked to Instagram last (sandbox convention). */
export const MANY_PAGES_PREFIX = 'manypages_';

/**
 * The Pages a user manages, in the order `/me/accounts` lists them. Usually one (linked to the
 * user's Instagram account); a `manypages_` token's user manages 30, to exercise paging.
 */
export function pagesManagedBy(subject: string, token: string): string[] {
  if (!token.startsWith(MANY_PAGES_PREFIX)) return [pageIdOf(subject)];
  return [
    ...Array.from({ length: 29 }, (_, i) => derivedId(`${userIdOf(subject)}:page${i}`, 15, '1')),
    pageIdOf(subject),
  ];
}

export interface GraphCaller {
  subject: string;
  token: string;
  /** Issued by the sandbox (so its kind is known) rather than BYOK. */
  issued: boolean;
  /** A Page token (issued by `/me/accounts` or `/{page}?fields=access_token`). */
  pageId: string | undefined;
}

export function requireGraphToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = graphToken(req);
    if (!token) return tokenError(res, 'missing');
    const check = ctx.state.tokens.check('facebook', token);
    if (check.status !== 'ok') return tokenError(res, check.status);
    const caller: GraphCaller = {
      subject: check.subject,
      token,
      issued: check.record !== undefined,
      pageId: check.subject.startsWith('page:') ? check.subject.slice(5) : undefined,
    };
    res.locals.caller = caller;
    next();
  };
}

export const callerOf = (res: Response) => res.locals.caller as GraphCaller;

/** Platform-usage header Graph sends on every response (percent of the hourly allowance). */
export function usageHeaders(): RequestHandler {
  const counts = new Map<string, { hour: number; count: number }>();
  return (req, res, next) => {
    const key = graphToken(req) ?? 'anonymous';
    const hour = Math.floor(Date.now() / 3_600_000);
    const entry = counts.get(key);
    const count = entry && entry.hour === hour ? entry.count + 1 : 1;
    counts.set(key, { hour, count });
    const percent = Math.min(100, Math.ceil(count / 2));
    res.setHeader(
      'x-app-usage',
      JSON.stringify({
        call_count: percent,
        total_cputime: Math.ceil(percent / 2),
        total_time: Math.ceil(percent / 2),
      }),
    );
    next();
  };
}

/** The `{id}` path segment (params are merged from the version mount, so typed loosely). */
export const idOf = (req: Request): string => String((req.params as Record<string, unknown>).id ?? '');

/**
 * Business Use Case usage header Graph sends on Page and Instagram calls (docs/networks.md §2.3):
 * percent used per object, and minutes until access is regained (0 while under the limit).
 */
export function bucHeaders(type: 'pages' | 'instagram'): RequestHandler {
  return (req, res, next) => {
    res.setHeader(
      'x-business-use-case-usage',
      JSON.stringify({
        [idOf(req)]: [{ type, call_count: 1, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 0 }],
      }),
    );
    next();
  };
}
