import express, { type Request, type Response, type Router } from 'express';
import type { IdentityDeps } from '../domain/identity.ts';
import { viewOf } from '../domain/identity.ts';
import { acceptInvite, createInvite } from '../domain/invites.ts';
import { listMembers, removeMember } from '../domain/members.ts';
import { resolveSession } from '../domain/resolve-session.ts';
import { signIn } from '../domain/sign-in.ts';
import { signOut, signOutEverywhere } from '../domain/sign-out.ts';
import { signUp } from '../domain/sign-up.ts';
import { switchOrg } from '../domain/switch-org.ts';
import {
  AcceptInviteBody,
  CreateInviteBody,
  parseBody,
  SignInBody,
  SignUpBody,
  SwitchOrgBody,
} from './auth.schemas.ts';
import type { SessionCookie } from './session-cookie.ts';
import { requireSession, signedIn } from './session-guard.ts';

export interface AuthRoutesDeps {
  identity: IdentityDeps;
  cookie: SessionCookie;
  /** DASHBOARD_PUBLIC_URL: invite links point here. */
  publicUrl: string;
}

/** The JSON endpoints the dashboard pages call: `/auth/*`. Responses never carry a JWT. */
export function authRoutes(deps: AuthRoutesDeps): Router {
  const { identity, cookie } = deps;
  const router = express.Router();
  const session = requireSession(identity, cookie);

  /** Answers the session view for a session just started (and sets its cookie). */
  const started = async (res: Response, status: number, token: string) => {
    const current = await resolveSession(identity, token);
    cookie.set(res, token);
    res.status(status).json(await viewOf(identity, current!, token));
  };

  router.post('/signup', async (req: Request, res: Response) => {
    const body = parseBody(SignUpBody, req.body);
    const { token } = await signUp(identity, {
      email: body.email,
      password: body.password,
      organizationName: body.organization_name,
      inviteToken: body.invite_token,
      address: req.ip ?? 'unknown',
    });
    await started(res, 201, token);
  });

  router.post('/signin', async (req: Request, res: Response) => {
    const body = parseBody(SignInBody, req.body);
    const { token } = await signIn(identity, { ...body, address: req.ip ?? 'unknown' });
    await started(res, 200, token);
  });

  router.post('/signout', session, async (_req: Request, res: Response) => {
    await signOut(identity, signedIn(res).session);
    cookie.clear(res);
    res.status(204).end();
  });

  router.post('/signout-all', session, async (_req: Request, res: Response) => {
    const result = await signOutEverywhere(identity, signedIn(res).session);
    cookie.clear(res);
    res.status(200).json(result);
  });

  router.get('/me', session, async (_req: Request, res: Response) => {
    const { session: current, token } = signedIn(res);
    res.status(200).json(await viewOf(identity, current, token));
  });

  router.post('/switch-org', session, async (req: Request, res: Response) => {
    const body = parseBody(SwitchOrgBody, req.body);
    const { session: current, token } = signedIn(res);
    res.status(200).json(await viewOf(identity, await switchOrg(identity, current, body.org_id), token));
  });

  router.post('/invites', session, async (req: Request, res: Response) => {
    const body = parseBody(CreateInviteBody, req.body);
    const invite = await createInvite(identity, signedIn(res).session, body.role ?? 'member');
    res.status(201).json({
      id: invite.id,
      org_id: invite.orgId,
      role: invite.role,
      token: invite.token,
      url: `${deps.publicUrl}/invites/${invite.token}`,
      expires_at: invite.expiresAt.toISOString(),
    });
  });

  router.post('/invites/accept', session, async (req: Request, res: Response) => {
    const body = parseBody(AcceptInviteBody, req.body);
    const { session: current, token } = signedIn(res);
    res.status(200).json(await viewOf(identity, await acceptInvite(identity, current, body.token), token));
  });

  router.get('/members', session, async (_req: Request, res: Response) => {
    const members = await listMembers(identity, signedIn(res).session);
    res.status(200).json({
      items: members.map((member) => ({
        user_id: member.userId,
        email: member.email,
        role: member.role,
        joined_at: member.joinedAt.toISOString(),
      })),
    });
  });

  router.delete('/members/:userId', session, async (req: Request<{ userId: string }>, res: Response) => {
    await removeMember(identity, signedIn(res).session, req.params.userId);
    res.status(204).end();
  });

  return router;
}
