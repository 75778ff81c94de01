import type { ApiKeyService } from '../domain/api-keys.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { operations } from '../openapi/operations.ts';

export function apiKeyRoutes(apiKeys: ApiKeyService): Route[] {
  return [
    defineRoute(operations.createApiKey, async ({ body, principal }) => {
      if (principal.kind !== 'jwt') throw new Error('unreachable: JWT-only route');
      return {
        status: 201,
        body: await apiKeys.create({
          orgId: principal.orgId,
          userId: principal.userId,
          name: body.name,
          scope: body.scope ?? 'full',
        }),
      };
    }),
    defineRoute(operations.listApiKeys, async ({ principal }) => ({
      status: 200,
      body: await apiKeys.list(principal.orgId),
    })),
    defineRoute(operations.revokeApiKey, async ({ params, principal }) => {
      await apiKeys.revoke(principal.orgId, params.key_id);
      return { status: 204 };
    }),
  ];
}
