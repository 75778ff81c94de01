import { createHash } from 'node:crypto';
import { AppError, conflict, isAppError, validationError } from '@svc/errors';
import type { PrismaClient } from '../generated/prisma/client.ts';

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
const PRUNE_EVERY_MS = 60_000;
/** Marks a record whose first run ended without knowing whether the effect happened. */
const RETRYABLE = { retryable: true };

/** JSON with object keys sorted, so the same body hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A UUID-shaped id derived from the key's record (version 8: custom). */
function operationId(scope: IdempotencyScope, createdAt: Date): string {
  const hex = createHash('sha256').update(`${scope.orgId}\n${scope.key}\n${createdAt.toISOString()}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** An error after which the effect may or may not have happened (timeouts, 5xx): the key stays, for a retry. */
const ambiguous = (error: unknown) => !isAppError(error) || error.status >= 500;

/** The `Idempotency-Key` header, checked (1..255 characters) when present. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key.length < 1 || key.length > 255) {
    throw validationError('Idempotency-Key must be 1 to 255 characters.', [{ path: '/headers/idempotency-key', message: 'must be 1 to 255 characters' }]);
  }
  return key;
}

/**
 * Idempotency keys of decisions §2: the same key and body within 24 h replays the first response;
 * the same key with another body (or another endpoint) is 422 `idempotency_conflict`. The record is
 * inserted before the work runs, so a concurrent duplicate finds it without a response yet and gets
 * 409 `conflict` instead of running twice. A request refused (4xx) leaves no record; one that ended
 * ambiguously (timeout, 5xx) keeps it as retryable, and the retry runs again with the same
 * operation id, which the publisher uses as the job id: a job created by a request whose answer was
 * lost is returned, not created twice.
 */
export class IdempotencyStore {
  private lastPrune = 0;

  constructor(private readonly db: PrismaClient, private readonly ttlMs = DAY_MS) {}

  async run(scope: IdempotencyScope | undefined, body: unknown, work: (operation: OperationId) => Promise<StoredResponse>): Promise<StoredResponse> {
    if (scope === undefined) return work(undefined);
    await this.pruneIfDue();
    const requestHash = createHash('sha256').update(canonical(body)).digest('hex');
    await this.db.$executeRawUnsafe('DELETE FROM idempotency_records WHERE org_id = $1 AND key = $2 AND expires_at <= now()', scope.orgId, scope.key);
    const [inserted] = await this.db.$queryRawUnsafe<{ created_at: Date }[]>(
      `INSERT INTO idempotency_records (org_id, key, method, path, request_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6::float8)) ON CONFLICT (org_id, key) DO NOTHING
       RETURNING created_at`,
      scope.orgId, scope.key, scope.method, scope.path, requestHash, this.ttlMs / 1000,
    );
    const createdAt = inserted?.created_at ?? (await this.claimExisting(scope, requestHash));
    if (createdAt instanceof Date) return this.execute(scope, createdAt, work);
    return createdAt;
  }

  private async execute(scope: IdempotencyScope, createdAt: Date, work: (operation: OperationId) => Promise<StoredResponse>): Promise<StoredResponse> {
    let response: StoredResponse;
    try {
      response = await work(operationId(scope, createdAt));
    } catch (error) {
      if (ambiguous(error)) await this.markRetryable(scope);
      else await this.forget(scope);
      throw error;
    }
    await this.db.idempotencyRecord.update({
      where: { orgId_key: { orgId: scope.orgId, key: scope.key } },
      data: { status: response.status, responseBody: response.body as object },
    });
    return response;
  }

  /** The key is taken: replay, refuse, or take over a retryable record (returns its creation time). */
  private async claimExisting(scope: IdempotencyScope, requestHash: string): Promise<StoredResponse | Date> {
    const record = await this.db.idempotencyRecord.findUnique({ where: { orgId_key: { orgId: scope.orgId, key: scope.key } } });
    if (record === null) throw conflict('A request with this Idempotency-Key just finished without a result; send it again.');
    if (record.requestHash !== requestHash || record.method !== scope.method || record.path !== scope.path) {
      throw new AppError('idempotency_conflict', 'This Idempotency-Key was already used with a different request; use a new key for a new request.', {
        details: [{ path: '/headers/idempotency-key', message: `first used for ${record.method.toUpperCase()} ${record.path} with another body` }],
      });
    }
    if (record.status !== null) return { status: record.status, body: record.responseBody, headers: { 'Idempotent-Replayed': 'true' } };
    const claimed = await this.db.$executeRawUnsafe(
      'UPDATE idempotency_records SET response_body = NULL WHERE org_id = $1 AND key = $2 AND status IS NULL AND response_body IS NOT NULL',
      scope.orgId, scope.key,
    );
    if (claimed === 1) return record.createdAt;
    throw conflict('A request with this Idempotency-Key is still being processed; retry in a moment.');
  }

  private async markRetryable(scope: IdempotencyScope): Promise<void> {
    await this.db.$executeRawUnsafe(
      'UPDATE idempotency_records SET response_body = $3::jsonb WHERE org_id = $1 AND key = $2 AND status IS NULL',
      scope.orgId, scope.key, JSON.stringify(RETRYABLE),
    );
  }

  private async forget(scope: IdempotencyScope): Promise<void> {
    await this.db.$executeRawUnsafe('DELETE FROM idempotency_records WHERE org_id = $1 AND key = $2 AND status IS NULL', scope.orgId, scope.key);
  }

  /** Expired records are deleted in the background of requests, at most once a minute per gateway. */
  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.db.$executeRawUnsafe(
      'DELETE FROM idempotency_records WHERE ctid IN (SELECT ctid FROM idempotency_records WHERE expires_at <= now() LIMIT 1000)',
    );
  }
}
