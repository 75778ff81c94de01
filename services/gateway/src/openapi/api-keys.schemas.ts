import { Type } from '@sinclair/typebox';
import { API_KEY_SCOPES } from '../auth/principal.ts';
import { Id, NullableTimestamp, StringEnum, Timestamp } from './common.schemas.ts';

export const ApiKeyScope = StringEnum(API_KEY_SCOPES, {
  description:
    '`full`: every operation API keys may call. `read_validate`: GET operations and `POST /v1/posts/validate` only; anything else answers 403 `forbidden`.',
});

export const ApiKeyCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    scope: Type.Optional(StringEnum(API_KEY_SCOPES, { default: 'full', description: 'What the key may do.' })),
  },
  { additionalProperties: false },
);
export const ApiKeySummary = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String({ description: 'Non-secret start of the key, to recognise it.' }),
  scope: ApiKeyScope,
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
});
export const ApiKeyCreated = Type.Composite([
  ApiKeySummary,
  Type.Object({
    key: Type.String({
      pattern: '^svc_[0-9A-Za-z]{32,}$',
      description: 'The key itself, shown only in this response.',
    }),
  }),
]);
export const ApiKeyList = Type.Array(ApiKeySummary);
export const ApiKeyIdParams = Type.Object({ key_id: Id });
