import { Type } from '@sinclair/typebox';
import { Id, NullableTimestamp, Timestamp } from './common.schemas.ts';

export const ApiKeyCreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 120 }) },
  { additionalProperties: false },
);
export const ApiKeySummary = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String({ description: 'Non-secret start of the key, to recognise it.' }),
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
