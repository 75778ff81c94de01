import { type AdapterDeps } from '../adapter-deps.ts';
import { type AuthorsCapability, type Profile } from '../types.ts';
import { type LinkedInRest } from './linkedin.media.ts';

interface AclPage {
  elements?: { organization?: string; role?: string; state?: string }[];
  paging?: { start?: number; count?: number; total?: number };
}

const PAGE_SIZE = 100;

/** The organization page behind an `urn:li:organization:{id}`, as an account profile. */
export async function organizationProfile(
  deps: AdapterDeps,
  rest: LinkedInRest,
  accessToken: string,
  urn: string,
): Promise<Profile> {
  const id = urn.split(':').pop()!;
  const org = (
    await deps.client.request<{ localizedName?: string; vanityName?: string }>({
      method: 'GET',
      url: `/rest/organizations/${id}`,
      headers: rest.headers(accessToken),
    })
  ).data;
  return {
    platformAccountId: urn,
    handle: org.vanityName ?? id,
    ...(org.localizedName ? { displayName: org.localizedName } : {}),
    extras: { author_urn: urn },
  };
}

/**
 * The pages the member administers (organizationAcls, q=roleAssignee, role ADMINISTRATOR, state
 * APPROVED; learn.microsoft.com linkedin/marketing/community-management/organizations/organization-access-control-by-role),
 * paged through to the end: each is connected as its own account.
 */
export function linkedinAuthors(deps: AdapterDeps, rest: LinkedInRest): AuthorsCapability {
  return {
    replacesUser: false,
    async list({ accessToken }) {
      const urns: string[] = [];
      for (let start = 0; ; start += PAGE_SIZE) {
        const page = (
          await deps.client.request<AclPage>({
            method: 'GET',
            url: '/rest/organizationAcls',
            params: { q: 'roleAssignee', role: 'ADMINISTRATOR', state: 'APPROVED', start, count: PAGE_SIZE },
            headers: rest.headers(accessToken),
          })
        ).data;
        const elements = page.elements ?? [];
        for (const element of elements)
          if (element.organization && !urns.includes(element.organization)) urns.push(element.organization);
        const total = page.paging?.total;
        if (elements.length < PAGE_SIZE || (total !== undefined && start + PAGE_SIZE >= total)) break;
      }
      const profiles: Profile[] = [];
      for (const urn of urns) profiles.push(await organizationProfile(deps, rest, accessToken, urn));
      return profiles;
    },
  };
}
