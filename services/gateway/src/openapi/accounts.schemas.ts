import { Type } from '@sinclair/typebox';
import { AccountView, OAuthAppView } from '@svc/contracts';
import { CursorPage, CursorQuery, Id, NullableTimestamp, Provider, StringEnum } from './common.schemas.ts';

export const AccountHealth = StringEnum(['active', 'expiring', 'requires_reconnect', 'revoked'] as const);

/** The same shape the accounts service answers with (declared once, in @svc/contracts). */
export const Account = AccountView;

export const Credentials = Type.Object(
  {
    access_token: Type.String({ minLength: 1, maxLength: 4096 }),
    refresh_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    page_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    ig_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    author_urn: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** `provider` and `platform` are two spellings of one field; either is accepted. */
export const AccountCreateBody = Type.Object(
  {
    provider: Type.Optional(Provider),
    platform: Type.Optional(Provider),
    platform_account_id: Type.String({ minLength: 1, maxLength: 256 }),
    handle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    credentials: Credentials,
  },
  { additionalProperties: false, anyOf: [{ required: ['provider'] }, { required: ['platform'] }] },
);
export const AccountListQuery = Type.Object(
  {
    provider: Type.Optional(Provider),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...CursorQuery,
  },
  { additionalProperties: false },
);
export const AccountList = CursorPage(Account);
export const AccountIdParams = Type.Object({ account_id: Id });
export const AccountRefreshResult = Type.Object({ id: Id, health: AccountHealth, token_expires_at: NullableTimestamp });

export const OAuthApp = OAuthAppView;
export const OAuthAppCreateBody = Type.Object(
  {
    provider: Provider,
    name: Type.String({ minLength: 1, maxLength: 120 }),
    client_id: Type.String({ minLength: 1, maxLength: 512 }),
    client_secret: Type.String({ minLength: 1, maxLength: 1024 }),
    /** The scopes this app asks for, when its products differ from the defaults (e.g. LinkedIn `r_member_postAnalytics`). */
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' }), { maxItems: 50 }),
    ),
  },
  { additionalProperties: false },
);
export const OAuthAppListQuery = Type.Object({ provider: Type.Optional(Provider) }, { additionalProperties: false });
export const ProviderParams = Type.Object({ provider: Provider });
export const OAuthStartQuery = Type.Object(
  {
    oauth_app_id: Type.Optional(Id),
    /** LinkedIn only: `organization` connects every page the member administers, each as its own account. */
    author_type: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('organization')])),
  },
  { additionalProperties: false },
);
export const OAuthStartResult = Type.Object({
  /** Where the browser that called `start` goes next (it holds the flow's cookie). */
  authorize_url: Type.String({ format: 'uri' }),
  handoff_url: Type.Optional(
    Type.String({
      format: 'uri',
      description:
        "A single-use link for another browser (the user's, when a CLI or a server called `start`): it shows a confirmation page, then gives that browser the flow's cookie and sends it to the network. Absent only while the gateway cannot reach Redis.",
    }),
  ),
  handoff_expires_at: Type.Optional(
    Type.String({ format: 'date-time', description: 'When `handoff_url` stops working (at most 10 minutes).' }),
  ),
});
export const OAuthHandoffParams = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 200, description: 'The code of a hand-off link.' }) },
  { additionalProperties: false },
);
export const OAuthHandoffForm = Type.Object({
  confirm: Type.String({ description: "The anti-forgery value of the link's confirmation page." }),
});
export const OAuthCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 4096 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  // Networks add their own parameters (scopes, error_reason...), so unknown ones are tolerated here.
  { additionalProperties: true },
);
export const OAuthCallbackResult = Type.Object({
  account_id: Id,
  provider: Provider,
  reconnected: Type.Boolean(),
  /** Every account connected (several LinkedIn organization pages); `account_id` is the first. */
  account_ids: Type.Optional(Type.Array(Id)),
});
