import { type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { type Response } from 'express';
import { hasScope, liCallerOf, organizationsAdministeredBy, requireLiToken, requireVersion } from './li-auth.ts';
import { liError, renderLinkedInFault } from './li-errors.ts';

/** Spec keys (interface-spec) -> organizationalEntityShareStatistics fields. */
const ORG_FIELDS: Record<string, string> = {
  share_statistics_impression_count: 'impressionCount',
  share_statistics_unique_impressions_count: 'uniqueImpressionsCount',
  share_statistics_click_count: 'clickCount',
  share_statistics_like_count: 'likeCount',
  share_statistics_comment_count: 'commentCount',
  share_statistics_share_count: 'shareCount',
  share_statistics_engagement: 'engagement',
};

/** memberCreatorPostAnalytics `queryType` -> spec key. */
const MEMBER_TYPES: Record<string, string> = {
  IMPRESSION: 'share_statistics_impression_count',
  MEMBERS_REACHED: 'share_statistics_unique_impressions_count',
  RESHARE: 'share_statistics_share_count',
  REACTION: 'share_statistics_like_count',
  COMMENT: 'share_statistics_comment_count',
};

/** A token without the endpoint's scope: 403 ACCESS_DENIED, serviceErrorCode 100 (LinkedIn error-handling). */
const denied = (res: Response, what: string) =>
  liError(res, 403, `Not enough permissions to access: ${what}`, 'ACCESS_DENIED', 100);

const listOf = (value: unknown) =>
  /^List\((.*)\)$/
    .exec(String(value ?? ''))?.[1]
    ?.split(',')
    .map(decodeURIComponent) ?? [];

/** Identity (OIDC userinfo), organizations, and post statistics (docs/networks.md §4.1, §4.5). */
export function registerLinkedInReads(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);

  router.get('/v2/userinfo', gate, auth, (_req, res) => {
    const { memberId } = liCallerOf(res);
    res.json({
      sub: memberId,
      email_verified: true,
      name: `Sandbox Member ${memberId.slice(-4)}`,
      locale: { country: 'US', language: 'en' },
      given_name: 'Sandbox',
      family_name: `Member ${memberId.slice(-4)}`,
      email: `${memberId}@sandbox.example`,
      picture: `https://media.licdn.com/dms/image/${memberId}/profile`,
    });
  });

  router.get('/rest/organizations/:id', gate, auth, version, (req, res) => {
    const id = String(req.params.id);
    if (!/^\d+$/.test(id)) return liError(res, 404, 'Organization not found.', 'NOT_FOUND');
    res.json({ id: Number(id), localizedName: `Sandbox Org ${id}`, vanityName: `sandbox-org-${id}` });
  });

  // organization-access-control-by-role: the pages the member administers, paged by start/count.
  router.get('/rest/organizationAcls', gate, auth, version, (req, res) => {
    const caller = liCallerOf(res);
    if (!hasScope(caller, 'rw_organization_admin', 'r_organization_admin'))
      return denied(res, 'GET /rest/organizationAcls');
    if (req.query.q !== 'roleAssignee') return liError(res, 400, 'q=roleAssignee is required.', 'ILLEGAL_ARGUMENT');
    const start = Number(req.query.start ?? 0);
    const count = Number(req.query.count ?? 10);
    const all = organizationsAdministeredBy(caller.memberId).map((organization) => ({
      roleAssignee: caller.personUrn,
      role: 'ADMINISTRATOR',
      state: 'APPROVED',
      organization,
    }));
    res.json({ paging: { count, start, total: all.length, links: [] }, elements: all.slice(start, start + count) });
  });

  router.get('/rest/organizationalEntityShareStatistics', gate, auth, version, (req, res) => {
    if (!hasScope(liCallerOf(res), 'rw_organization_admin'))
      return denied(res, 'GET /rest/organizationalEntityShareStatistics');
    if (req.query.q !== 'organizationalEntity' || typeof req.query.organizationalEntity !== 'string') {
      return liError(res, 400, 'q=organizationalEntity and organizationalEntity are required.', 'ILLEGAL_ARGUMENT');
    }
    const organization = req.query.organizationalEntity;
    const shares = listOf(req.query.shares);
    const ugcPosts = listOf(req.query.ugcPosts);
    const elements = [
      ...shares.map((urn) => ['share', urn] as const),
      ...ugcPosts.map((urn) => ['ugcPost', urn] as const),
    ].map(([key, urn]) => {
      const stored = state.metricsOf('linkedin', urn) ?? {};
      const totals = Object.fromEntries(
        Object.entries(ORG_FIELDS).map(([specKey, field]) => [
          field,
          typeof stored[specKey] === 'number' ? stored[specKey] : 0,
        ]),
      );
      return { totalShareStatistics: totals, [key]: urn, organizationalEntity: organization };
    });
    res.json({ paging: { count: 10, start: 0, links: [] }, elements });
  });

  router.get('/rest/memberCreatorPostAnalytics', gate, auth, version, (req, res) => {
    if (!hasScope(liCallerOf(res), 'r_member_postAnalytics'))
      return denied(res, 'GET /rest/memberCreatorPostAnalytics');
    const entity = /^\((share|ugc):(.+)\)$/.exec(String(req.query.entity ?? ''));
    const queryType = String(req.query.queryType ?? '');
    if (req.query.q !== 'entity' || !entity || !MEMBER_TYPES[queryType]) {
      return liError(res, 400, 'q=entity, entity=(share:urn) and a valid queryType are required.', 'ILLEGAL_ARGUMENT');
    }
    const urn = decodeURIComponent(entity[2]!);
    const stored = state.metricsOf('linkedin', urn) ?? {};
    const count = stored[MEMBER_TYPES[queryType]!];
    res.json({
      paging: { count: 10, start: 0, links: [] },
      elements: [
        {
          count: typeof count === 'number' ? count : 0,
          metricType: queryType,
          targetEntity: { [entity[1] === 'ugc' ? 'ugcPost' : 'share']: urn },
        },
      ],
    });
  });
}
