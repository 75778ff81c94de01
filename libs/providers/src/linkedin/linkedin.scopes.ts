/**
 * What LinkedIn asks to be granted, per author type (learn.microsoft.com linkedin/marketing/
 * community-management/shares/posts-api, .../organizations/share-statistics,
 * .../members/post-statistics; linkedin/shared/authentication/getting-access):
 * - a member posts with `w_member_social` ("Share on LinkedIn", open to every app) and signs in
 *   with `openid profile` ("Sign In with LinkedIn using OpenID Connect");
 * - an organization page posts with `w_organization_social`, reads its posts and statistics with
 *   `r_organization_social` / `rw_organization_admin` (the latter also lists the pages the member
 *   administers, organizationAcls): all from the vetted Community Management API.
 * `r_member_postAnalytics` (member post statistics) is a Community Management API scope too: asking
 * an app without that product for it fails the whole authorization (`unauthorized_scope_error`), so
 * it is never asked by default; an OAuth app that has the product lists it in its own `scopes`.
 */
export const linkedinAuthorTypes = ['member', 'organization'] as const;
export type LinkedInAuthorType = (typeof linkedinAuthorTypes)[number];

export const LINKEDIN_SCOPES: Readonly<Record<LinkedInAuthorType, readonly string[]>> = {
  member: ['openid', 'profile', 'w_member_social'],
  organization: ['openid', 'profile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin'],
};
