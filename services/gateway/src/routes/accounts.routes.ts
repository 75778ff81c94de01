import { accountsConnect, accountsDelete, accountsList, accountsRefresh, accountsRulesGet } from '@svc/contracts';
import type { MediaLimits } from '@svc/media';
import { accountCapabilities } from '../domain/account-capabilities.ts';
import { validationError } from '@svc/errors';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/** `mediaLimits`: the media library's own limits (MEDIA_MAX_*), which cap what capabilities announce. */
export function accountRoutes(rpc: RpcCaller, mediaLimits: MediaLimits): Route[] {
  return [
    defineRoute(operations.listAccounts, async ({ query, principal, requestId }) => ({
      status: 200,
      body: await rpc(accountsList, { ...query, limit: query.limit ?? 50 }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.createAccount, async ({ body, principal, requestId }) => {
      if (body.provider !== undefined && body.platform !== undefined && body.provider !== body.platform) {
        throw validationError('provider and platform name the same field; give one, or the same value in both.', [
          { path: '/body/platform', message: 'differs from provider' },
        ]);
      }
      const provider = (body.provider ?? body.platform)!;
      const account = await rpc(
        accountsConnect,
        {
          provider,
          platform_account_id: body.platform_account_id,
          credentials: body.credentials,
          ...(body.handle === undefined ? {} : { handle: body.handle }),
        },
        { orgId: principal.orgId, requestId },
      );
      return { status: 201, body: account };
    }),

    defineRoute(operations.deleteAccount, async ({ params, principal, requestId }) => {
      await rpc(accountsDelete, { account_id: params.account_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.getAccountCapabilities, async ({ params, principal, requestId }) => ({
      status: 200,
      body: accountCapabilities(
        await rpc(accountsRulesGet, { account_id: params.account_id }, { orgId: principal.orgId, requestId }),
        mediaLimits,
      ),
    })),

    defineRoute(operations.refreshAccount, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(accountsRefresh, { account_id: params.account_id }, { orgId: principal.orgId, requestId }),
    })),
  ];
}
