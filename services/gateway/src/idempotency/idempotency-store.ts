import { createHash } from 'node:crypto';
import { AppError, conflict, isAppError, validationError, type ErrorCode, type ErrorDetail } from '@svc/errors';
import type { RawSql } from '@svc/db';

export interface IdempotencyScope {
  orgId: string;
  key: string;
  method: string;
  path: string;
}

export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * What the work learns about its key: a stable id for the operation (the same on every retry of
 * one key within its 24 h), so the owning service can make the effect itself idempotent, e.g. use it
 * as the job id. Undefined without an `Idempotency-Key`.
 */
export type OperationId = string | undefined;

const DAY_MS = 24 * 3600_000;
/**
 * How long a run owns its key without renewing it. Renewed every third of it while the work runs
 * (uploads may take minutes), so it only runs out when the gateway running the request died; then a
 * retry of the same request takes the key over within this long instead of getting 409 for 24 h.
 */
const LEASE_MS = 30_000;

export interface IdempotencyStoreOptions {
  /** How long a key answers with its first response (docs/api-conventions.md, "Idempotency": 24 h). */
  ttlMs?: number;
  leaseMs?: number;
}

/** A refusal worth replaying: what the error middleware needs to answer it again. */
interface StoredRefusal {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/** JSON with object keys sorted, so the same body hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A UUID-shaped id derived from the key's record (version 8: custom). */
function operationId(scope: IdempotencyScope, createdAt: Date): string {
  const hex = createHash('sha256').update(`${scope.orgId}\n${scope.key}\n${createdAt.toISOString()}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What a failed run leaves behind. `ambiguous` (timeouts, 5xx): the effect may have happened, so the
 * key stays for a retry with the same operation id. `refused` (a 4xx that would be the same next
 * time): stored and replayed like a success, so the key cannot be reused for another body. `transient`
 * (a retryable 4xx such as 429): nothing happened and trying later may succeed, so the key is freed.
 */
function outcomeOf(error: unknown): 'ambiguous' | 'refused' | 'transient' {
  if (!isAppError(error) || error.status >= 500) return 'ambiguous';
  return error.retryable ? 'transient' : 'refused';
}

/** The `Idempotency-Key` header, checked (1..255 characters) when present. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key.length < 1 || key.length > 255) {
    throw validationError('Idempotency-Key must be 1 to 255 characters.', [
      { path: '/headers/idempotency-key', message: 'must be 1 to 255 characters' },
    ]);
  }
  return key;
}

/**
 * Idempotency keys (docs/api-conventions.md, "Idempotency"): the same key and body within 24 h
 * replays the first response; the same key with another body (or another endpoint) is 422
 * `idempotency_conflict`. The record is inserted, with a lease, before the work runs, so a concurrent
 * duplicate finds it without a response and gets 409 `conflict` instead of running twice. A first
 * answer that was a refusal (non-retryable 4xx) is stored and replayed too. A run that ended
 * ambiguously (timeout, 5xx) frees its lease, and a run whose gateway died lets its lease run out;
 * either way the retry runs again with the same operation id, which the publisher uses as the job id:
 * a job created by a request whose answer was lost is returned, not created twice. Expired records
 * are taken over by the insert itself and deleted in bulk by IdempotencyPruner, never on the request
 * path.
 */
export class IdempotencyStore {
  private readonly ttlMs: number;
  private readonly leaseMs: number;

  constructor(
    private readonly db: RawSql,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DAY_MS;
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  async run(
    scope: IdempotencyScope | undefined,
    body: unknown,
    work: (operation: OperationId) => Promise<StoredResponse>,
  ): Promise<StoredResponse> {
    if (scope === undefined) return work(undefined);
    const requestHash = createHash('sha256').update(canonical(body)).digest('hex');
    // One statement claims a new key or an expired one (which starts afresh: a new operation id).
    const [inserted] = await this.db.$queryRawUnsafe<{ created_at: Date }[]>(
      `INSERT INTO idempotency_records AS r (org_id, key, method, path, request_hash, created_at, expires_at, locked_until)
       VALUES ($1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6::float8), now() + make_interval(secs => $7::float8))
       ON CONFLICT (org_id, key) DO UPDATE
         SET method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash, status = NULL,
             response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, locked_until = EXCLUDED.locked_until
         WHERE r.expires_at <= now()
       RETURNING created_at`,
      scope.orgId,
      scope.key,
      scope.method,
      scope.path,
      requestHash,
      this.ttlMs / 1000,
      this.leaseMs / 1000,
    );
    const createdAt = inserted?.created_at ?? (await this.claimExisting(scope, requestHash));
    if (createdAt instanceof Date) return this.execute(scope, createdAt, work);
    return createdAt;
  }

  private async execute(
    scope: IdempotencyScope,
    createdAt: Date,
    work: (operation: OperationId) => Promise<StoredResponse>,
  ): Promise<StoredResponse> {
    // A renewal still in flight is awaited before the record is settled, so it cannot re-lock a freed key.
    let renewing: Promise<void> = Promise.resolve();
    const heartbeat = setInterval(() => (renewing = this.renewLease(scope)), this.leaseMs / 3);
    const stopHeartbeat = async () => {
      clearInterval(heartbeat);
      await renewing;
    };
    let response: StoredResponse;
    try {
      response = await work(operationId(scope, createdAt));
    } catch (error) {
      await stopHeartbeat();
      const outcome = outcomeOf(error);
      if (outcome === 'refused' && isAppError(error))
        await this.store(scope, { status: error.status, body: refusalOf(error) });
      else if (outcome === 'ambiguous') await this.releaseLease(scope);
      else await this.forget(scope);
      throw error;
    }
    await stopHeartbeat();
    await this.store(scope, response);
    return response;
  }

  /** The key is taken: replay, refuse, or take over a record no live run holds (returns its creation time). */
  private async claimExisting(scope: IdempotencyScope, requestHash: string): Promise<StoredResponse | Date> {
    const [record] = await this.db.$queryRawUnsafe<
      { method: string; path: string; request_hash: string; status: number | null; response_body: unknown }[]
    >(
      'SELECT method, path, request_hash, status, response_body FROM idempotency_records WHERE org_id = $1 AND key = $2',
      scope.orgId,
      scope.key,
    );
    if (record === undefined)
      throw conflict('A request with this Idempotency-Key just finished without a result; send it again.');
    if (record.request_hash !== requestHash || record.method !== scope.method || record.path !== scope.path) {
      throw new AppError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
        {
          details: [
            {
              path: '/headers/idempotency-key',
              message: `first used for ${record.method.toUpperCase()} ${record.path} with another body`,
            },
          ],
        },
      );
    }
    if (record.status !== null) return replay(record.status, record.response_body);
    const [claimed] = await this.db.$queryRawUnsafe<{ created_at: Date }[]>(
      `UPDATE idempotency_records SET locked_until = now() + make_interval(secs => $3::float8)
        WHERE org_id = $1 AND key = $2 AND status IS NULL AND (locked_until IS NULL OR locked_until <= now())
        RETURNING created_at`,
      scope.orgId,
      scope.key,
      this.leaseMs / 1000,
    );
    if (claimed !== undefined) return claimed.created_at;
    throw conflict('A request with this Idempotency-Key is still being processed; retry in a moment.');
  }

  private async store(scope: IdempotencyScope, response: StoredResponse): Promise<void> {
    await this.db.$executeRawUnsafe(
      'UPDATE idempotency_records SET status = $3, response_body = $4::jsonb, locked_until = NULL WHERE org_id = $1 AND key = $2',
      scope.orgId,
      scope.key,
      response.status,
      JSON.stringify(response.body ?? null),
    );
  }

  /**
   * A missed renewal (database hiccup) costs at most a takeover by a retry, which the operation id
   * makes harmless; the run itself must not fail for it, so the error ends here on purpose.
   */
  private async renewLease(scope: IdempotencyScope): Promise<void> {
    await this.db
      .$executeRawUnsafe(
        'UPDATE idempotency_records SET locked_until = now() + make_interval(secs => $3::float8) WHERE org_id = $1 AND key = $2 AND status IS NULL',
        scope.orgId,
        scope.key,
        this.leaseMs / 1000,
      )
      .catch(() => undefined);
  }

  private async releaseLease(scope: IdempotencyScope): Promise<void> {
    await this.db.$executeRawUnsafe(
      'UPDATE idempotency_records SET locked_until = NULL WHERE org_id = $1 AND key = $2 AND status IS NULL',
      scope.orgId,
      scope.key,
    );
  }

  private async forget(scope: IdempotencyScope): Promise<void> {
    await this.db.$executeRawUnsafe(
      'DELETE FROM idempotency_records WHERE org_id = $1 AND key = $2 AND status IS NULL',
      scope.orgId,
      scope.key,
    );
  }
}

function refusalOf(error: AppError): StoredRefusal {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/** A stored success is returned as it was; a stored refusal is thrown again, for the error middleware to answer. */
function replay(status: number, body: unknown): StoredResponse {
  if (status >= 400) {
    const { error } = body as StoredRefusal;
    throw new AppError(error.code, error.message, {
      status,
      ...(error.details === undefined ? {} : { details: error.details }),
      headers: { 'Idempotent-Replayed': 'true' },
    });
  }
  return { status, body, headers: { 'Idempotent-Replayed': 'true' } };
}
