import { Type } from '@sinclair/typebox';
import { ApiKeyCreateBody, ApiKeyCreated, ApiKeyIdParams, ApiKeyList } from './api-keys.schemas.ts';
import { DevToken, DevTokenBody } from './dev.schemas.ts';
import { defineOperation } from './operation.ts';
import { accountOperations } from './accounts.operations.ts';
import { billingOperations } from './billing.operations.ts';
import { draftOperations } from './drafts.operations.ts';
import { mediaOperations } from './media.operations.ts';
import { publishingOperations } from './publishing.operations.ts';
import { webhookOperations } from './webhooks.operations.ts';

/** Every endpoint of the public API (docs/api-conventions.md and the OpenAPI document), one file an area. */
export const operations = {
  health: defineOperation({
    operationId: 'health',
    method: 'get',
    path: '/health',
    summary: 'Liveness of the API.',
    tag: 'Health',
    auth: 'none',
    responses: { 200: Type.Object({ status: Type.Literal('ok') }) },
    errors: [],
  }),
  openapi: defineOperation({
    operationId: 'getOpenApi',
    method: 'get',
    path: '/v1/openapi.json',
    summary: 'This OpenAPI document.',
    tag: 'Health',
    auth: 'none',
    responses: { 200: Type.Object({}, { additionalProperties: true }) },
    errors: [],
  }),

  createDevToken: defineOperation({
    operationId: 'createDevToken',
    method: 'post',
    path: '/v1/dev/token',
    summary:
      'Development only (NODE_ENV=development with JWT_SECRET): a 15-minute dashboard token for `org_id` (default `org_dev`). 404 anywhere else.',
    tag: 'Development',
    auth: 'none',
    body: DevTokenBody,
    responses: { 201: DevToken },
    errors: [400, 404, 429],
  }),

  createApiKey: defineOperation({
    operationId: 'createApiKey',
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key (the key is shown once).',
    tag: 'API keys',
    auth: 'jwt',
    body: ApiKeyCreateBody,
    responses: { 201: ApiKeyCreated },
    errors: [400, 403],
  }),
  listApiKeys: defineOperation({
    operationId: 'listApiKeys',
    method: 'get',
    path: '/v1/api-keys',
    summary: 'List API keys (never the keys themselves).',
    tag: 'API keys',
    auth: 'jwt',
    responses: { 200: ApiKeyList },
    errors: [403],
  }),
  revokeApiKey: defineOperation({
    operationId: 'revokeApiKey',
    method: 'delete',
    path: '/v1/api-keys/{key_id}',
    summary: 'Revoke an API key; it is rejected at once.',
    tag: 'API keys',
    auth: 'jwt',
    params: ApiKeyIdParams,
    responses: { 204: null },
    errors: [403, 404],
  }),

  ...publishingOperations,
  ...mediaOperations,
  ...accountOperations,
  ...webhookOperations,
  ...billingOperations,
  ...draftOperations,
};

export type OperationName = keyof typeof operations;
