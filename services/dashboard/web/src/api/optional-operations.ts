// Operations the pages use when the API's contract has them: `POST /v1/posts/validate` and
// `GET /v1/accounts/{id}/capabilities`. Their types come from the SDK's generated contract; against a
// contract without them, the calls answer null and the pages fall back to the create call's own
// 400 problems and to counts without a limit.
import { openApiDocument, type operations, type SvcErrorDetail } from '@svc/sdk';
import { api } from './client.ts';

type OkBody<K extends string> = K extends keyof operations
  ? operations[K] extends { responses: { 200: { content: { 'application/json': infer R } } } }
    ? R
    : never
  : never;

/** What `GET /v1/accounts/{id}/capabilities` answers (from the contract). */
export type Capabilities = OkBody<'getAccountCapabilities'>;
/** What `POST /v1/posts/validate` answers (from the contract). */
export type Validation = OkBody<'validatePost'>;

const operationIds = new Set(
  Object.values(openApiDocument.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  ),
);

export const hasOperation = (id: string) => operationIds.has(id);

type LooseCall = (operationId: string, input: object) => Promise<unknown>;
const looseCall = api.call as unknown as LooseCall;

export async function capabilitiesOf(accountId: string): Promise<Capabilities | null> {
  if (!hasOperation('getAccountCapabilities')) return null;
  return (await looseCall('getAccountCapabilities', { path: { account_id: accountId } })) as Capabilities;
}

export async function validatePost(body: object, signal?: AbortSignal): Promise<SvcErrorDetail[] | null> {
  if (!hasOperation('validatePost')) return null;
  const result = (await looseCall('validatePost', { body, ...(signal ? { signal } : {}) })) as {
    problems: SvcErrorDetail[];
  };
  return result.problems;
}
