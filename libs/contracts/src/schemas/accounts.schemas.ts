import { Type, type Static } from '@sinclair/typebox';

/** Shapes shared by the accounts messages and the gateway's HTTP schemas. */
export const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export const Provider = Type.Unsafe<(typeof NETWORKS)[number]>({ type: 'string', enum: [...NETWORKS] });
export const Health = Type.Unsafe<'active' | 'expiring' | 'requires_reconnect' | 'revoked'>({
  type: 'string',
  enum: ['active', 'expiring', 'requires_reconnect', 'revoked'],
});
export const NullableDate = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** An account as API users see it (no credential ever). */
export const AccountView = Type.Object({
  id: Type.String(),
  provider: Provider,
  platform: Provider,
  platform_account_id: Type.String(),
  handle: Type.Union([Type.String(), Type.Null()]),
  health: Health,
  connection_type: Type.Unsafe<'oauth' | 'byok'>({ type: 'string', enum: ['oauth', 'byok'] }),
  token_expires_at: NullableDate,
  created_at: Type.String({ format: 'date-time' }),
});
export type AccountViewType = Static<typeof AccountView>;

export const OAuthAppView = Type.Object({
  id: Type.String(),
  provider: Provider,
  name: Type.String(),
  client_id: Type.String(),
  redirect_uri: Type.String(),
  scopes: Type.Array(Type.String()),
});
