import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { validationError } from '@svc/errors';

const Email = Type.String({ pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', maxLength: 254 });
/** At least 12 characters (NIST SP 800-63B favours length over composition rules); at most 256 to bound hashing. */
const Password = Type.String({ minLength: 12, maxLength: 256 });
const Token = Type.String({ pattern: '^[A-Za-z0-9_-]{20,100}$' });

export const SignUpBody = Type.Object(
  {
    email: Email,
    password: Password,
    organization_name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    invite_token: Type.Optional(Token),
  },
  { additionalProperties: false },
);

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const SwitchOrgBody = Type.Object(
  { org_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);

export const CreateInviteBody = Type.Object(
  { role: Type.Optional(Type.Union([Type.Literal('owner'), Type.Literal('member')])) },
  { additionalProperties: false },
);

export const AcceptInviteBody = Type.Object({ token: Token }, { additionalProperties: false });

/** The body, checked against its schema; every problem listed in a 400 (passwords never echoed). */
export function parseBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  const value: unknown = body ?? {};
  if (Value.Check(schema, value)) return value;
  const details = [...Value.Errors(schema, value)].map((error) => ({
    path: `/body${error.path}`,
    message: error.message,
  }));
  throw validationError('The request body is not valid.', details);
}
