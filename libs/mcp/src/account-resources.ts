import {
  ErrorCode,
  McpError,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller, CallResponse } from './caller.ts';

/** One resource per connected account: what it can publish (the capabilities operation's answer). */
export const CAPABILITIES_TEMPLATE = 'svc://accounts/{account_id}/capabilities';
const CAPABILITIES_URI = /^svc:\/\/accounts\/([^/?#]+)\/capabilities$/;
/** The MCP error code for a resource that does not exist (MCP specification, "Resources"). */
const RESOURCE_NOT_FOUND = -32002;
const PAGE_SIZE = 100;

interface AccountPage {
  items: { id: string; provider: string; handle: string | null; platform_account_id: string }[];
  next_cursor: string | null;
}

export const capabilitiesUri = (accountId: string) => `svc://accounts/${encodeURIComponent(accountId)}/capabilities`;

/** A failed API call as a JSON-RPC error whose `data` is the API's error body, unchanged. */
function apiFailure(operationId: string, response: CallResponse): McpError {
  const code = response.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError;
  return new McpError(code, `${operationId} answered ${response.status}.`, response.body);
}

export function resourceTemplates(): ListResourceTemplatesResult {
  return {
    resourceTemplates: [
      {
        uriTemplate: CAPABILITIES_TEMPLATE,
        name: 'account-capabilities',
        title: 'What a connected account can publish',
        description:
          'Post types, text length, media kinds and limits, threads, first comment and alt text of one connected account.',
        mimeType: 'application/json',
      },
    ],
  };
}

/** One page of connected accounts as resources; MCP's cursor is the API's `next_cursor`. */
export async function listAccountResources(caller: Caller, cursor: string | undefined): Promise<ListResourcesResult> {
  const response = await caller('listAccounts', {
    query: { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) },
  });
  if (response.status !== 200) throw apiFailure('listAccounts', response);
  const page = response.body as AccountPage;
  return {
    resources: page.items.map((account) => ({
      uri: capabilitiesUri(account.id),
      name: `${account.provider}:${account.handle ?? account.platform_account_id}`,
      title: `Capabilities of the ${account.provider} account ${account.handle ?? account.platform_account_id}`,
      mimeType: 'application/json',
    })),
    ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
  };
}

export async function readAccountResource(caller: Caller, uri: string): Promise<ReadResourceResult> {
  const match = CAPABILITIES_URI.exec(uri);
  if (match === null)
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}; expected ${CAPABILITIES_TEMPLATE}.`);
  const response = await caller('getAccountCapabilities', { path: { account_id: decodeURIComponent(match[1]!) } });
  if (response.status !== 200) throw apiFailure('getAccountCapabilities', response);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(response.body) }] };
}
