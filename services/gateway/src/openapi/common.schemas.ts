import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export type Network = (typeof NETWORKS)[number];

/** A plain enum (not anyOf of constants) so validation errors name the allowed values. */
export function StringEnum<T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Provider = StringEnum(NETWORKS, { description: 'One of the five networks.' });
export const Id = Type.String({ minLength: 1, maxLength: 64, description: 'Identifier.' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 with timezone.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'snake_case machine-readable code.' }),
    message: Type.String({ description: 'Human sentence.' }),
    details: Type.Optional(
      Type.Array(
        Type.Object({ path: Type.Optional(Type.String()), message: Type.String() }, { additionalProperties: true }),
      ),
    ),
    request_id: Type.String(),
  }),
});
export type ErrorBodyType = Static<typeof ErrorBody>;

/** Keyset pagination query (docs/api-conventions.md, "Pagination"): opaque cursor, limit 1..100 default 50. */
export const CursorQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'Value of `next_cursor` from the previous page.' }),
  ),
};

export function CursorPage<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Integer({ minimum: 0, description: 'Size of the whole filtered set.' }),
  });
}
