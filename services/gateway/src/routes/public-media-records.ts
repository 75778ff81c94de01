import { publisherMediaExists } from '@svc/contracts';
import { isAppError } from '@svc/errors';
import type { RpcCaller } from '../http/rpc-caller.ts';

/** How long a record found is remembered; deletion removes the bytes at once, so this only saves RPCs. */
const REMEMBER_MS = 60_000;
/** Ids remembered per process at most (the oldest go first). */
const MAX_REMEMBERED = 10_000;

/**
 * Whether a media id has a record, asked of the publisher (which owns them) and remembered briefly:
 * the public URL serves only recorded files, so an orphan (stored, never recorded) is not served
 * while it waits for the sweep. Absent ids are not remembered: the misses budget bounds them.
 * `undefined` when the publisher cannot answer now (restarting, the broker reconnecting): networks
 * fetch these URLs while a post is created and fail the post for good on an error, so the caller
 * then trusts storage rather than refuse a file that is most likely recorded.
 */
export class PublicMediaRecords {
  private readonly found = new Map<string, number>();

  constructor(private readonly rpc: RpcCaller) {}

  async has(mediaId: string, requestId: string): Promise<boolean | undefined> {
    const until = this.found.get(mediaId);
    if (until !== undefined && until > Date.now()) return true;
    this.found.delete(mediaId);
    let exists: boolean;
    try {
      ({ exists } = await this.rpc(publisherMediaExists, { media_id: mediaId }, { orgId: null, requestId }));
    } catch (error) {
      if (isAppError(error) && error.status >= 500) return undefined;
      throw error;
    }
    if (exists) {
      if (this.found.size >= MAX_REMEMBERED) this.found.delete(this.found.keys().next().value!);
      this.found.set(mediaId, Date.now() + REMEMBER_MS);
    }
    return exists;
  }
}
