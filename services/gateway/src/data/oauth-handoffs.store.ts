import type { Redis } from 'ioredis';

/** What a sealed record turns into once used: kept until the link's expiry, so a second use says "used". */
const USED = 'used';

/**
 * Stores the record and counts it among its organization's outstanding links, in one step: drops the
 * organization's expired links from its set, refuses (returning the expiry of the oldest, when a slot
 * frees) past the cap, else writes the record with its TTL and adds it to the set.
 * KEYS: record, organization set. ARGV: sealed record, ttl ms, now ms, expiry ms, cap, id.
 */
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[6])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 0
`;

/**
 * Takes a record for use: returns it and leaves USED in its place (same TTL), so exactly one caller
 * ever gets it, however many replicas race.
 */
const TAKE = `
local value = redis.call('GET', KEYS[1])
if value and value ~= '${USED}' then redis.call('SET', KEYS[1], '${USED}', 'KEEPTTL') end
return value
`;

export type StoredHandoff = { state: 'open'; sealed: string } | { state: 'used' } | { state: 'unknown' };

export interface OAuthHandoffStoreOptions {
  /** Outstanding links per organization. */
  maxPerOrg: number;
  /** Isolates test runs that share one Redis. */
  keyPrefix?: string;
}

/**
 * OAuth hand-off links in Redis (shared by every gateway replica), by the SHA-256 of their code, each
 * with its TTL, and per organization a sorted set of its outstanding ones (scored by expiry) that
 * bounds how many one tenant can keep. The two keys of one organization's link are touched by one
 * script: Redis, not Redis Cluster.
 */
export class OAuthHandoffStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    private readonly options: OAuthHandoffStoreOptions,
  ) {
    this.prefix = options.keyPrefix ?? 'oauth-handoff';
  }

  private recordKey = (id: string) => `${this.prefix}:link:${id}`;
  private orgKey = (orgId: string) => `${this.prefix}:org:${orgId}`;

  /** Stores a link, or answers when the organization's oldest outstanding one expires (at the cap). */
  async create(
    orgId: string,
    id: string,
    sealed: string,
    expiresAt: Date,
  ): Promise<{ created: true } | { created: false; slotFreesAt: Date }> {
    const now = Date.now();
    const result = await this.redis.eval(
      CREATE,
      2,
      this.recordKey(id),
      this.orgKey(orgId),
      sealed,
      String(Math.max(1, expiresAt.getTime() - now)),
      String(now),
      String(expiresAt.getTime()),
      String(this.options.maxPerOrg),
      id,
    );
    return result === 0 ? { created: true } : { created: false, slotFreesAt: new Date(Number(result)) };
  }

  async peek(id: string): Promise<StoredHandoff> {
    return stored(await this.redis.get(this.recordKey(id)));
  }

  /** Takes the link for use: only the first caller finds it open. */
  async take(id: string): Promise<StoredHandoff> {
    return stored((await this.redis.eval(TAKE, 1, this.recordKey(id))) as string | null);
  }

  /** Frees a used link's place among its organization's outstanding ones. */
  async release(orgId: string, id: string): Promise<void> {
    await this.redis.zrem(this.orgKey(orgId), id);
  }
}

function stored(value: string | null): StoredHandoff {
  if (value === null) return { state: 'unknown' };
  if (value === USED) return { state: 'used' };
  return { state: 'open', sealed: value };
}
