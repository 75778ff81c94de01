// @svc/sdk: the API's TypeScript client. Only fetch, WebCrypto and web streams are used here, so this
// entry runs in Node 20+ and browsers alike; Node-only helpers are in `@svc/sdk/node`.
export { createClient, type ClientOptions, type SvcClient } from './client.ts';
export type { Call, CallInput, RequestOptions } from './call.ts';
export {
  openApiDocument,
  type OperationId,
  type PathParams,
  type QueryParams,
  type RequestBody,
  type ResponseData,
  type components,
  type operations,
  type paths,
} from './contract.ts';
export {
  SvcApiError,
  SvcError,
  SvcNetworkError,
  SvcWaitTimeoutError,
  SvcWebhookVerificationError,
  type SvcErrorDetail,
  type WebhookVerificationReason,
} from './errors.ts';
export type { Paginated } from './pagination.ts';
export type { UploadOptions, UploadProgress, UploadSource } from './resources/media.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.ts';
export type { FetchLike } from './transport.ts';
export { SDK_VERSION } from './version.ts';
export { isSettled, type Post, type WaitOptions } from './wait-for-job.ts';
export {
  isLegacyWebhookEvent,
  verifyWebhook,
  type LegacyWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookEnvelopeEvent,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks/verify-webhook.ts';
