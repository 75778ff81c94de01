import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs),
 * Secure with the `__Host-` prefix (https only, this host only, path /). DASHBOARD_INSECURE_COOKIES
 * drops Secure and the prefix for a development browser on plain http://127.0.0.1.
 */
export class SessionCookie {
  readonly name: string;

  constructor(
    private readonly secure: boolean,
    private readonly maxAgeSeconds: number,
  ) {
    this.name = secure ? '__Host-svc_session' : 'svc_session';
  }

  read(req: Request): string | undefined {
    const header = req.headers.cookie;
    if (header === undefined) return undefined;
    const value = parse(header)[this.name];
    return value === undefined || value.length === 0 ? undefined : value;
  }

  set(res: Response, token: string): void {
    res.append('Set-Cookie', this.serialize(token, this.maxAgeSeconds));
  }

  clear(res: Response): void {
    res.append('Set-Cookie', this.serialize('', 0));
  }

  private serialize(value: string, maxAge: number): string {
    return serialize(this.name, value, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge });
  }
}
