import { Type } from '@sinclair/typebox';
import {
  Account, AccountCreateBody, AccountIdParams, AccountList, AccountListQuery, AccountRefreshResult, OAuthApp,
  OAuthAppCreateBody, OAuthAppListQuery, OAuthCallbackQuery, OAuthCallbackResult, OAuthStartQuery, OAuthStartResult, ProviderParams,
} from './accounts.schemas.ts';
import { AnalyticsPage, AnalyticsQuery, CheckoutSession, Stats } from './analytics.schemas.ts';
import { BillingSubscription, PortalSession, StripeEventBody, StripeSignatureHeader, WebhookReceived } from './billing.schemas.ts';
import { ApiKeyCreateBody, ApiKeyCreated, ApiKeyIdParams, ApiKeyList } from './api-keys.schemas.ts';
import { MediaAsset, MediaIdParams, MediaImportBody, MediaList, MediaListQuery, MediaVerifyBody, MediaVerifyResult, PublicMediaParams } from './media.schemas.ts';
import { defineOperation } from './operation.ts';
import {
  IdempotencyKeyHeader, JobIdParams, Post, PostCreateBody, PostIdParams, PostList, PublishCreateBody, PublishJob, PublishList, PublishListQuery,
} from './publishing.schemas.ts';
import {
  DeliveryIdParams, DeliveryList, DeliveryListQuery, WebhookCreateBody, WebhookCreated, WebhookDelivery, WebhookEndpoint, WebhookIdParams,
  WebhookTestResult, WebhookUpdateBody,
} from './webhooks.schemas.ts';

const idempotent = { 'Idempotency-Key': IdempotencyKeyHeader };

/** Every endpoint of the public API (docs/api-conventions.md and the OpenAPI document), implemented or not yet. */
export const operations = {
  health: defineOperation({ operationId: 'health', method: 'get', path: '/health', summary: 'Liveness of the API.', tag: 'Health', auth: 'none', responses: { 200: Type.Object({ status: Type.Literal('ok') }) }, errors: [] }),
  openapi: defineOperation({ operationId: 'getOpenApi', method: 'get', path: '/v1/openapi.json', summary: 'This OpenAPI document.', tag: 'Health', auth: 'none', responses: { 200: Type.Object({}, { additionalProperties: true }) }, errors: [] }),

  createApiKey: defineOperation({ operationId: 'createApiKey', method: 'post', path: '/v1/api-keys', summary: 'Create an API key (the key is shown once).', tag: 'API keys', auth: 'jwt', body: ApiKeyCreateBody, responses: { 201: ApiKeyCreated }, errors: [400, 403] }),
  listApiKeys: defineOperation({ operationId: 'listApiKeys', method: 'get', path: '/v1/api-keys', summary: 'List API keys (never the keys themselves).', tag: 'API keys', auth: 'jwt', responses: { 200: ApiKeyList }, errors: [403] }),
  revokeApiKey: defineOperation({ operationId: 'revokeApiKey', method: 'delete', path: '/v1/api-keys/{key_id}', summary: 'Revoke an API key; it is rejected at once.', tag: 'API keys', auth: 'jwt', params: ApiKeyIdParams, responses: { 204: null }, errors: [403, 404] }),

  createPublishJob: defineOperation({ operationId: 'createPublishJob', method: 'post', path: '/v1/publish', summary: 'Enqueue or schedule a publish job to 1..100 accounts.', tag: 'Publish jobs', auth: 'api_key_or_jwt', headers: idempotent, body: PublishCreateBody, responses: { 202: PublishJob }, errors: [400, 402, 409, 422] }),
  listPublishJobs: defineOperation({ operationId: 'listPublishJobs', method: 'get', path: '/v1/publish', summary: 'Publish history, newest first, keyset-paginated.', tag: 'Publish jobs', auth: 'api_key_or_jwt', query: PublishListQuery, responses: { 200: PublishList }, errors: [400] }),
  cancelPublishJob: defineOperation({ operationId: 'cancelPublishJob', method: 'post', path: '/v1/publish/{job_id}/cancel', summary: 'Cancel a scheduled job.', tag: 'Publish jobs', auth: 'api_key_or_jwt', params: JobIdParams, responses: { 200: PublishJob }, errors: [404, 409] }),

  createPost: defineOperation({ operationId: 'createPost', method: 'post', path: '/v1/posts', summary: 'Create a post (same record as a publish job).', tag: 'Posts', auth: 'api_key_or_jwt', headers: idempotent, body: PostCreateBody, responses: { 202: Post }, errors: [400, 402, 409, 422] }),
  listPosts: defineOperation({ operationId: 'listPosts', method: 'get', path: '/v1/posts', summary: 'List posts, newest first.', tag: 'Posts', auth: 'api_key_or_jwt', query: PublishListQuery, responses: { 200: PostList }, errors: [400] }),
  getPost: defineOperation({ operationId: 'getPost', method: 'get', path: '/v1/posts/{post_id}', summary: 'A post with one result per target account.', tag: 'Posts', auth: 'api_key_or_jwt', params: PostIdParams, responses: { 200: Post }, errors: [404] }),
  cancelPost: defineOperation({ operationId: 'cancelPost', method: 'post', path: '/v1/posts/{post_id}/cancel', summary: 'Cancel a scheduled post.', tag: 'Posts', auth: 'api_key_or_jwt', params: PostIdParams, responses: { 200: Post }, errors: [404, 409] }),

  createMedia: defineOperation({ operationId: 'createMedia', method: 'post', path: '/v1/media', summary: 'Upload media (multipart form with a `file` part, or the raw bytes) or import it from a URL (JSON `{url}`). The type is sniffed from the bytes.', tag: 'Media', auth: 'api_key_or_jwt', headers: idempotent, body: MediaImportBody, rawBodyTypes: ['multipart/form-data', 'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'video/quicktime', 'application/octet-stream'], streamRawBody: true, responses: { 201: MediaAsset }, errors: [400, 413, 415, 422] }),
  verifyMedia: defineOperation({ operationId: 'verifyMedia', method: 'post', path: '/v1/media/verify', summary: 'Check that a URL serves usable media, reading its headers and first bytes only (nothing is stored or decoded).', tag: 'Media', auth: 'api_key_or_jwt', body: MediaVerifyBody, responses: { 200: MediaVerifyResult }, errors: [400] }),
  listMedia: defineOperation({ operationId: 'listMedia', method: 'get', path: '/v1/media', summary: 'List the media library.', tag: 'Media', auth: 'api_key_or_jwt', query: MediaListQuery, responses: { 200: MediaList }, errors: [400] }),
  getMedia: defineOperation({ operationId: 'getMedia', method: 'get', path: '/v1/media/{media_id}', summary: 'A media asset.', tag: 'Media', auth: 'api_key_or_jwt', params: MediaIdParams, responses: { 200: MediaAsset }, errors: [404] }),
  deleteMedia: defineOperation({ operationId: 'deleteMedia', method: 'delete', path: '/v1/media/{media_id}', summary: 'Delete a media asset (409 naming the post while a post not yet delivered uses it).', tag: 'Media', auth: 'api_key_or_jwt', params: MediaIdParams, responses: { 204: null }, errors: [404, 409] }),
  getPublicMedia: defineOperation({ operationId: 'getPublicMedia', method: 'get', path: '/media/{file}', summary: 'The bytes of a media file (`public_url`), without credentials: sniffed type, length, and single-range requests (206/416). `{media_id}.jpg` is the JPEG rendition.', tag: 'Media', auth: 'none', anonymousUnlimited: true, params: PublicMediaParams, responses: { 200: null, 206: null }, errors: [404, 416, 429] }),

  listAccounts: defineOperation({ operationId: 'listAccounts', method: 'get', path: '/v1/accounts', summary: 'Connected accounts.', tag: 'Accounts', auth: 'api_key_or_jwt', query: AccountListQuery, responses: { 200: AccountList }, errors: [400] }),
  createAccount: defineOperation({ operationId: 'createAccount', method: 'post', path: '/v1/accounts', summary: 'Connect an account with your own credentials (BYOK).', tag: 'Accounts', auth: 'api_key_or_jwt', body: AccountCreateBody, responses: { 201: Account }, errors: [400, 402, 409] }),
  deleteAccount: defineOperation({ operationId: 'deleteAccount', method: 'delete', path: '/v1/accounts/{account_id}', summary: 'Disconnect an account.', tag: 'Accounts', auth: 'api_key_or_jwt', params: AccountIdParams, responses: { 204: null }, errors: [404] }),
  refreshAccount: defineOperation({ operationId: 'refreshAccount', method: 'post', path: '/v1/accounts/{account_id}/refresh', summary: 'Force a token refresh.', tag: 'Accounts', auth: 'api_key_or_jwt', params: AccountIdParams, responses: { 200: AccountRefreshResult }, errors: [404, 409] }),

  startOAuth: defineOperation({ operationId: 'startOAuth', method: 'get', path: '/v1/oauth/{provider}/start', summary: 'Authorize URL for connecting an account.', tag: 'OAuth', auth: 'jwt', params: ProviderParams, query: OAuthStartQuery, responses: { 200: OAuthStartResult }, errors: [400, 403, 404] }),
  oauthCallback: defineOperation({ operationId: 'oauthCallback', method: 'get', path: '/v1/oauth/{provider}/callback', summary: 'Where the network sends the user back; connects the account, then redirects or answers JSON.', tag: 'OAuth', auth: 'none', anonymousBucket: 'oauth_callback', params: ProviderParams, query: OAuthCallbackQuery, responses: { 200: OAuthCallbackResult, 302: null }, errors: [400, 402, 409] }),
  listOAuthApps: defineOperation({ operationId: 'listOAuthApps', method: 'get', path: '/v1/oauth-apps', summary: 'Your own OAuth apps (BYOK).', tag: 'OAuth', auth: 'jwt', query: OAuthAppListQuery, responses: { 200: Type.Array(OAuthApp) }, errors: [400, 403] }),
  createOAuthApp: defineOperation({ operationId: 'createOAuthApp', method: 'post', path: '/v1/oauth-apps', summary: 'Register your own OAuth app; the secret is stored encrypted, never returned.', tag: 'OAuth', auth: 'jwt', body: OAuthAppCreateBody, responses: { 201: OAuthApp }, errors: [400, 403] }),

  listWebhooks: defineOperation({ operationId: 'listWebhooks', method: 'get', path: '/v1/webhooks', summary: 'Webhook endpoints.', tag: 'Webhooks', auth: 'jwt', responses: { 200: Type.Array(WebhookEndpoint) }, errors: [403] }),
  createWebhook: defineOperation({ operationId: 'createWebhook', method: 'post', path: '/v1/webhooks', summary: 'Register a webhook endpoint (signing secret shown once); 409 `max_endpoints` past 20 per organization.', tag: 'Webhooks', auth: 'jwt', body: WebhookCreateBody, responses: { 201: WebhookCreated }, errors: [400, 403, 409] }),
  updateWebhook: defineOperation({ operationId: 'updateWebhook', method: 'patch', path: '/v1/webhooks/{webhook_id}', summary: 'Change url, events or active (true resumes an auto-paused endpoint).', tag: 'Webhooks', auth: 'jwt', params: WebhookIdParams, body: WebhookUpdateBody, responses: { 200: WebhookEndpoint }, errors: [400, 403, 404] }),
  deleteWebhook: defineOperation({ operationId: 'deleteWebhook', method: 'delete', path: '/v1/webhooks/{webhook_id}', summary: 'Delete a webhook endpoint.', tag: 'Webhooks', auth: 'jwt', params: WebhookIdParams, responses: { 204: null }, errors: [403, 404] }),
  testWebhook: defineOperation({ operationId: 'testWebhook', method: 'post', path: '/v1/webhooks/{webhook_id}/test', summary: 'Send a sample event and answer its outcome (receiver timeout 5 s); 429 with Retry-After past the organization\'s limit of tests in flight, or while the endpoint\'s deliveries hang.', tag: 'Webhooks', auth: 'jwt', params: WebhookIdParams, responses: { 200: WebhookTestResult }, errors: [403, 404, 429] }),
  rotateWebhookSecret: defineOperation({ operationId: 'rotateWebhookSecret', method: 'post', path: '/v1/webhooks/{webhook_id}/rotate-secret', summary: 'New signing secret (shown once); each earlier one keeps signing for 24 h after its replacement (409 while 3 still sign).', tag: 'Webhooks', auth: 'jwt', params: WebhookIdParams, responses: { 200: WebhookCreated }, errors: [403, 404, 409] }),
  listWebhookDeliveries: defineOperation({ operationId: 'listWebhookDeliveries', method: 'get', path: '/v1/webhooks/{webhook_id}/deliveries', summary: 'Deliveries, newest first, each with its latest 20 attempts.', tag: 'Webhooks', auth: 'jwt', params: WebhookIdParams, query: DeliveryListQuery, responses: { 200: DeliveryList }, errors: [400, 403, 404] }),
  replayWebhookDelivery: defineOperation({ operationId: 'replayWebhookDelivery', method: 'post', path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', summary: 'Send a delivery of the last 14 days again.', tag: 'Webhooks', auth: 'jwt', params: DeliveryIdParams, responses: { 202: WebhookDelivery }, errors: [403, 404, 409] }),

  listPostAnalytics: defineOperation({ operationId: 'listPostAnalytics', method: 'get', path: '/v1/analytics/posts', summary: 'Cached official post analytics; stale rows are refreshed.', tag: 'Analytics', auth: 'api_key_or_jwt', query: AnalyticsQuery, responses: { 200: AnalyticsPage }, errors: [400] }),
  getStats: defineOperation({ operationId: 'getStats', method: 'get', path: '/v1/stats', summary: 'Dashboard overview.', tag: 'Dashboard', auth: 'jwt', responses: { 200: Stats }, errors: [403] }),
  createCheckout: defineOperation({ operationId: 'createCheckout', method: 'post', path: '/v1/billing/checkout', summary: 'Hosted Stripe Checkout session for the paid plan (no body).', tag: 'Billing', auth: 'jwt', responses: { 200: CheckoutSession }, errors: [403, 409] }),
  createBillingPortal: defineOperation({ operationId: 'createBillingPortal', method: 'post', path: '/v1/billing/portal', summary: 'Stripe customer-portal session to manage the subscription (no body).', tag: 'Billing', auth: 'jwt', responses: { 200: PortalSession }, errors: [403, 409] }),
  getBillingSubscription: defineOperation({ operationId: 'getBillingSubscription', method: 'get', path: '/v1/billing/subscription', summary: 'Plan, status, period end and usage this month against each limit.', tag: 'Billing', auth: 'jwt', responses: { 200: BillingSubscription }, errors: [403] }),
  receiveStripeWebhook: defineOperation({ operationId: 'receiveStripeWebhook', method: 'post', path: '/v1/billing/webhook', summary: 'Stripe webhook endpoint: verified by its signature over the raw body, applied once per event id.', tag: 'Billing', auth: 'none', anonymousBucket: 'stripe_webhook', rawBody: { schema: StripeEventBody }, headers: { 'Stripe-Signature': StripeSignatureHeader }, responses: { 200: WebhookReceived }, errors: [400, 413] }),
};

export type OperationName = keyof typeof operations;
