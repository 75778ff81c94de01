import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { AccountView, Health, NullableDate, OAuthAppView, Provider } from '../schemas/accounts.schemas.ts';

// Requests carrying credentials (connect, OAuth app create, credentials get) are RPC only: RPC
// messages are transient (non-persistent, classic queue, expiring), so no secret rests in a queue.

export const accountsList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.list.v1',
  service: 'accounts',
  payload: Type.Object({
    provider: Type.Optional(Provider),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    cursor: Type.Optional(Type.String()),
  }),
  reply: Type.Object({
    items: Type.Array(AccountView),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Integer({ minimum: 0 }),
  }),
});

export const accountsConnect = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.connect.v1',
  service: 'accounts',
  payload: Type.Object({
    provider: Provider,
    platform_account_id: Type.String({ minLength: 1 }),
    handle: Type.Optional(Type.String()),
    credentials: Type.Object({
      access_token: Type.String({ minLength: 1 }),
      refresh_token: Type.Optional(Type.String({ minLength: 1 })),
      expires_at: Type.Optional(Type.String({ format: 'date-time' })),
      page_id: Type.Optional(Type.String()),
      ig_user_id: Type.Optional(Type.String()),
      author_urn: Type.Optional(Type.String()),
    }),
  }),
  reply: AccountView,
});

const AccountRef = Type.Object({ account_id: Type.String({ minLength: 1 }) });

export const accountsDelete = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.delete.v1',
  service: 'accounts',
  payload: AccountRef,
  reply: Type.Object({}),
});

export const accountsRefresh = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.refresh.v1',
  service: 'accounts',
  payload: AccountRef,
  reply: Type.Object({ id: Type.String(), health: Health, token_expires_at: NullableDate }),
});

export const oauthStart = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.oauth_start.v1',
  service: 'accounts',
  payload: Type.Object({
    provider: Provider,
    oauth_app_id: Type.Optional(Type.String()),
    /** LinkedIn: connect the member (default) or the organization pages the member administers. */
    author_type: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('organization')])),
  }),
  /**
   * `browser_cookie` is what the gateway sets (HttpOnly) on the browser that started the flow; the
   * callback only connects when that browser comes back with it (a forwarded link cannot).
   */
  reply: Type.Object({
    authorize_url: Type.String(),
    browser_cookie: Type.Optional(
      Type.Object({ name: Type.String(), value: Type.String(), max_age_seconds: Type.Integer() }),
    ),
  }),
});

/** The callback carries no credential: the organization comes from the signed state. */
export const oauthComplete = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.oauth_complete.v1',
  service: 'accounts',
  payload: Type.Object({
    provider: Provider,
    code: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
    /** The flow-binding cookies the browser sent (name -> value), at most a few. */
    browser_cookies: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: 20 })),
  }),
  reply: Type.Object({
    account_id: Type.String(),
    provider: Provider,
    reconnected: Type.Boolean(),
    /** Every account this authorization connected (several LinkedIn organization pages); `account_id` is the first. */
    account_ids: Type.Optional(Type.Array(Type.String())),
  }),
});

export const oauthAppsList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.oauth_apps_list.v1',
  service: 'accounts',
  payload: Type.Object({ provider: Type.Optional(Provider) }),
  reply: Type.Object({ items: Type.Array(OAuthAppView) }),
});

export const oauthAppsCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.oauth_apps_create.v1',
  service: 'accounts',
  payload: Type.Object({
    provider: Provider,
    name: Type.String({ minLength: 1, maxLength: 120 }),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.String({ minLength: 1 }),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  }),
  reply: OAuthAppView,
});

/** A usable access token for one account, refreshed first when near expiry. Only the services that call networks may ask. */
export const credentialsGet = defineMessage({
  kind: 'rpc',
  type: 'accounts.credentials_get.v1',
  service: 'accounts',
  callers: ['publisher', 'analytics-sync'],
  payload: Type.Object({ account_id: Type.String({ minLength: 1 }), force_refresh: Type.Optional(Type.Boolean()) }),
  reply: Type.Object({
    account_id: Type.String(),
    provider: Provider,
    access_token: Type.String(),
    extras: Type.Record(Type.String(), Type.String()),
    token_expires_at: NullableDate,
  }),
});

/** Which of these ids are connected accounts of the organization (for validation before publishing). */
export const accountsLookup = defineMessage({
  kind: 'rpc',
  callers: ['publisher'],
  type: 'accounts.lookup.v1',
  service: 'accounts',
  payload: Type.Object({ account_ids: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }) }),
  reply: Type.Object({
    items: Type.Array(
      Type.Object({
        id: Type.String(),
        provider: Provider,
        health: Health,
        handle: Type.Union([Type.String(), Type.Null()]),
        /** What the content rules read per account (X `subscription_type` for the Premium text limit); optional so older replies stay valid. */
        rule_extras: Type.Optional(Type.Record(Type.String(), Type.String())),
      }),
    ),
  }),
});

/** What capabilities are derived from: one account's network, rule extras and granted scopes (404 unknown or foreign). */
export const accountsRulesGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.rules_get.v1',
  service: 'accounts',
  payload: Type.Object({ account_id: Type.String({ minLength: 1 }) }),
  reply: Type.Object({
    id: Type.String(),
    provider: Provider,
    rule_extras: Type.Record(Type.String(), Type.String()),
    scopes: Type.Array(Type.String()),
  }),
});

export const connectionRevoked = defineMessage({
  kind: 'event',
  type: 'connection.revoked.v1',
  payload: Type.Object({
    account_id: Type.String(),
    provider: Provider,
    platform_account_id: Type.String(),
    handle: Type.Union([Type.String(), Type.Null()]),
    health: Health,
    reason: Type.String(),
  }),
  description: 'A connected account was revoked or needs reconnecting.',
});

/**
 * Event-carried state: what other services may keep about an account (the publisher's replica, read
 * on every accept instead of an `accounts.lookup` RPC). Written by a trigger on the accounts table in
 * the same transaction as the change, whenever one of these facts changes (connect, reconnect,
 * refresh outcome, health, delete), never for a token refresh alone. `version` grows with every
 * change of one account (a sequence taken under the row's lock): a consumer keeps the highest, so a
 * redelivered or overtaken event changes nothing. `deleted` is final. No token or secret is carried.
 */
export const accountStateChanged = defineMessage({
  kind: 'event',
  type: 'account.state_changed.v1',
  payload: Type.Object({
    account_id: Type.String(),
    provider: Provider,
    handle: Type.Union([Type.String(), Type.Null()]),
    health: Health,
    /** The stored identifiers the content rules read (`ruleExtrasOf`), as `accounts.lookup` gives them. */
    rule_extras: Type.Record(Type.String(), Type.String()),
    deleted: Type.Boolean(),
    version: Type.Integer({ minimum: 1 }),
  }),
  description: 'An account was connected, changed health or handle, or was deleted (its state as of the change).',
});

/** Counts for the dashboard: connected (usable) accounts and the distinct networks they are on. */
export const accountsSummary = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.summary.v1',
  service: 'accounts',
  payload: Type.Object({}),
  reply: Type.Object({
    connected_accounts: Type.Integer({ minimum: 0 }),
    connected_networks: Type.Integer({ minimum: 0 }),
  }),
});
