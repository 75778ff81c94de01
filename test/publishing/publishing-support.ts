// Helpers shared by the publishing system tests: connect accounts through the API, publish, and wait
// for jobs to settle, exactly as an API user would.
import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import type { SystemHarness } from '../support/system-harness.ts';

/** The delivery commands, to tap (test/support/message-tap.ts), and the deliveries one names. */
export const COMMANDS = ['publisher.delivery_run.v1', 'publisher.delivery_run.v2'];
export const commandedDeliveries = (envelope: { payload: Record<string, unknown> }): string[] =>
  (envelope.payload.delivery_ids as string[] | undefined) ?? [envelope.payload.delivery_id as string];

export type Network = 'instagram' | 'facebook' | 'x' | 'linkedin' | 'tiktok';
export const NETWORKS: Network[] = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'];

export interface PostBody {
  id: string;
  status: string;
  results: {
    account_id: string;
    provider: string;
    status: string;
    platform_post_id: string | null;
    platform_post_url: string | null;
    error_code: string | null;
    error_message: string | null;
    attempts: number;
  }[];
}

/** Connects a BYOK account (the sandbox accepts unknown tokens and maps each to a stable account). */
export async function connectAccount(
  system: SystemHarness,
  auth: string,
  network: Network,
  token = `${uniqueName('tok')}-${network}`,
): Promise<string> {
  // The test's own profile read: a generous timeout, since a loaded CI machine can take over 500 ms.
  const profile = await testProviders(system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })[network].profile.fetch({
    accessToken: token,
  });
  const res = await request(system.gateway)
    .post('/v1/accounts')
    .set('Authorization', auth)
    .send({ provider: network, platform_account_id: profile.platformAccountId, credentials: { access_token: token } });
  if (res.status !== 201) throw new Error(`connecting ${network} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

/** A body every network accepts: a JPEG for Instagram/TikTok and TikTok's privacy level. */
export function validBody(
  system: SystemHarness,
  accountIds: string[],
  text = `hello ${uniqueName('post')}`,
): Record<string, unknown> {
  return {
    account_ids: accountIds,
    text,
    media_urls: [system.media.url('/image.jpg')],
    provider_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
  };
}

const FINAL = new Set(['published', 'partial', 'failed', 'canceled']);

/** Polls GET /v1/posts/{id} until the job reaches a final status. */
export async function waitForFinal(
  system: SystemHarness,
  auth: string,
  id: string,
  timeoutMs = 20_000,
): Promise<PostBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth);
    if (res.status !== 200) throw new Error(`GET /v1/posts/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const post = res.body as PostBody;
    if (FINAL.has(post.status)) return post;
    if (Date.now() > deadline)
      throw new Error(`post ${id} still ${post.status} after ${timeoutMs} ms: ${JSON.stringify(post.results)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ReplicaRow {
  health: string;
  handle: string | null;
  deleted: boolean;
  version: string;
}

/**
 * Waits until the publisher's account replica (fed by account.state_changed.v1) shows the account as
 * `until` wants: the replica follows accounts through the outbox relay, so a change is seen there a
 * moment after it commits (docs/architecture.md, Publishing).
 */
export async function waitForReplica(
  system: SystemHarness,
  accountId: string,
  until: (row: ReplicaRow | undefined) => boolean,
  timeoutMs = 10_000,
): Promise<ReplicaRow | undefined> {
  const db = system.workers.publisher!.runtime.db;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.$queryRawUnsafe<ReplicaRow[]>(
      'SELECT health, handle, deleted, version::text FROM account_replicas WHERE account_id = $1::uuid',
      accountId,
    );
    if (until(row)) return row;
    if (Date.now() > deadline)
      throw new Error(`the publisher's replica of ${accountId} is ${JSON.stringify(row)} after ${timeoutMs} ms`);
    await sleep(25);
  }
}
