import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.schemas.ts';

/** The organization a development token is for when the body names none. */
export const DEV_ORG_ID = 'org_dev';

export const DevTokenBody = Type.Object(
  {
    org_id: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        default: DEV_ORG_ID,
        description: `The organization to act as (created on first use); \`${DEV_ORG_ID}\` by default.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const DevToken = Type.Object({
  token: Type.String({
    description: 'A dashboard JWT (HS256, signed with JWT_SECRET): `Authorization: Bearer <token>`.',
  }),
  org_id: Type.String(),
  expires_at: Timestamp,
});
