import type { MediaStorage } from '@svc/media';
import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { JPEG } from '../../libs/providers/test/support/media-server.ts';
import { oauthRoundTrip } from '../support/oauth-round-trip.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { loadDocsExample } from '../webhooks/docs-example.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import {
  connectAccount,
  validBody,
  waitForFinal,
  waitForReplica,
  type Network,
  type PostBody,
} from './publishing-support.ts';

/**
 * What a user sees when a network refuses a post for good, end to end through one system (gateway,
 * accounts, publisher, webhook dispatcher, the sandbox): a token the user revoked, on each network and
 * each way of connecting, and an Instagram image the network cannot fetch.
 */

/**
 * The gateway's media storage, able to stop serving one file: `servings` says how many more full reads
 * a key gets before its public URL answers 404 (a file deleted or lost after the post was accepted).
 */
const servings = new Map<string, number>();
function vanishing(inner: MediaStorage): MediaStorage {
  return {
    kind: inner.kind,
    putFile: (key, file, contentType) => inner.putFile(key, file, contentType),
    stat: async (key) => ((servings.get(key) ?? 1) > 0 ? inner.stat(key) : null),
    read: async (key, range) => {
      const left = servings.get(key);
      if (left !== undefined) servings.set(key, left - 1);
      return inner.read(key, range);
    },
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
  };
}

interface Revoked {
  type: string;
  data: { account_id: string; provider: string; health: string; reason: string };
}

describe('network refusals end to end', () => {
  let system: SystemHarness;
  let receiver: Receiver;
  let auth: string;
  let signingSecret: string;
  const docs = loadDocsExample();

  beforeAll(async () => {
    receiver = await startReceiver();
    system = await startSystem({
      services: ['accounts', 'publisher', 'webhook-dispatcher'],
      env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,1000', WEBHOOK_RETRY_JITTER: '0' },
      wrapMediaStorage: vanishing,
    });
    const orgId = uniqueName('org');
    auth = `Bearer ${await system.token(orgId)}`;
    const endpoint = await request(system.gateway)
      .post('/v1/webhooks')
      .set('Authorization', auth)
      .send({ url: receiver.url('/revoked'), events: ['connection.revoked'] });
    expect(endpoint.status).toBe(201);
    signingSecret = endpoint.body.signing_secret as string;
  }, 90_000);

  afterAll(async () => {
    await receiver?.close();
    await system?.close();
  }, 180_000);

  const publish = (body: Record<string, unknown>) =>
    request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
  const publishJob = (body: Record<string, unknown>) =>
    request(system.gateway).post('/v1/publish').set('Authorization', auth).send(body);

  describe('a token the user revoked, on every network', () => {
    const connect: Record<'BYOK' | 'OAuth', (network: Network) => Promise<string>> = {
      BYOK: (network) => connectAccount(system, auth, network),
      OAuth: async (network) => {
        const res = await oauthRoundTrip(system.gateway, auth, network);
        expect(res.status).toBe(200);
        return (res.body as { account_id: string }).account_id;
      },
    };
    // The health accounts gives, from how the network answers the renewal of a revoked token: Graph
    // and LinkedIn say "revoked" to any call; X and TikTok answer a revoked access token like an
    // expired one (a re-validated BYOK token: requires_reconnect) and say so only to a refresh.
    const cases: [Network, 'BYOK' | 'OAuth', string][] = [
      ['instagram', 'BYOK', 'revoked'],
      ['instagram', 'OAuth', 'revoked'],
      ['facebook', 'BYOK', 'revoked'],
      ['facebook', 'OAuth', 'revoked'],
      ['x', 'BYOK', 'requires_reconnect'],
      ['x', 'OAuth', 'revoked'],
      ['linkedin', 'BYOK', 'revoked'],
      ['linkedin', 'OAuth', 'revoked'],
      ['tiktok', 'BYOK', 'requires_reconnect'],
      ['tiktok', 'OAuth', 'revoked'],
    ];
    it.each(cases)(
      '%s (%s): the target fails, the account needs reconnecting, connection.revoked reaches the receiver',
      async (network, how, health) => {
        const account = await connect[how](network);
        // One refusal only: the post call meets it, and the renewal that follows meets the revocation itself.
        await system.sandbox.fault(network, 'token_revoked', 1);
        const text = `revoked ${network} ${how} ${uniqueName('post')}`;
        const res = await publishJob(validBody(system, [account], text));
        expect(res.status).toBe(202);
        const post = await waitForFinal(system, auth, res.body.job_id as string, 30_000);
        expect(await system.sandbox.pendingFaults()).toEqual([]);
        expect(post.status).toBe('failed');
        expect(post.results).toEqual([
          expect.objectContaining({
            account_id: account,
            provider: network,
            status: 'failed',
            error_code: 'account_unusable',
            platform_post_id: null,
            attempts: 1,
          }),
        ]);
        expect(post.results[0]!.error_message).toContain('needs reconnecting');
        expect((await system.sandbox.posts(network)).filter((item) => item.text === text)).toEqual([]);

        const accounts = await request(system.gateway)
          .get('/v1/accounts')
          .query({ limit: 100 })
          .set('Authorization', auth);
        expect((accounts.body.items as { id: string; health: string }[]).find((item) => item.id === account)).toEqual(
          expect.objectContaining({ health }),
        );
        const delivered = await waitForWebhook(account);
        expect(docs.verifyShapeA(signingSecret, delivered.headers, delivered.rawBody)).toBe(true);
        expect(delivered.headers['x-svc-event']).toBe('connection.revoked');
        expect(JSON.parse(delivered.rawBody) as Revoked).toMatchObject({
          type: 'connection.revoked',
          data: { account_id: account, provider: network, health, reason: expect.any(String) },
        });
        // Accept refuses the account from now on (once the publisher's replica has the news), until it is reconnected.
        await waitForReplica(system, account, (row) => row?.health === health);
        const again = await publishJob(validBody(system, [account], `${text} again`));
        expect(again.status).toBe(400);
        expect(again.body.error.details).toEqual([expect.objectContaining({ rule: 'account_unusable' })]);
      },
    );

    /** The receiver's delivery of connection.revoked for the account (one per account: each is connected once). */
    async function waitForWebhook(accountId: string) {
      for (;;) {
        const found = receiver
          .received('/revoked')
          .find((item) => (JSON.parse(item.rawBody) as Revoked).data.account_id === accountId);
        if (found !== undefined) return found;
        await receiver.waitFor('/revoked', receiver.received('/revoked').length + 1);
      }
    }
  });

  describe('Instagram: an image the network cannot fetch', () => {
    let instagram: string;

    beforeAll(async () => {
      instagram = await connectAccount(system, auth, 'instagram');
    });

    /** A JPEG in the media library, whose public URL serves `reads` full reads, then 404. */
    async function libraryImage(reads: number): Promise<string> {
      const upload = await request(system.gateway)
        .post('/v1/media')
        .set('Authorization', auth)
        .attach('file', JPEG, 'photo.jpg');
      expect(upload.status).toBe(201);
      const mediaId = upload.body.media_id as string;
      servings.set(mediaId, reads);
      return mediaId;
    }

    async function postTo(mediaId: string): Promise<{ post: PostBody; text: string }> {
      const text = `unfetchable ${uniqueName('post')}`;
      const res = await publish({ account_ids: [instagram], text, media_ids: [mediaId] });
      expect(res.status).toBe(202);
      return { post: await waitForFinal(system, auth, res.body.id as string, 30_000), text };
    }

    it('refused when the container is created (9004/2207052): failed media_invalid with Meta’s own words, once', async () => {
      const { post, text } = await postTo(await libraryImage(0));
      expect(post.status).toBe('failed');
      expect(post.results[0]).toEqual(
        expect.objectContaining({ status: 'failed', error_code: 'media_invalid', platform_post_id: null, attempts: 1 }),
      );
      expect(post.results[0]!.error_message).toContain('The media could not be fetched from this URI');
      expect((await system.sandbox.posts('instagram')).filter((item) => item.text === text)).toEqual([]);
    });

    it('gone once the container exists: the container ends ERROR 2207052, the target fails media_invalid explained, no retry', async () => {
      const { post, text } = await postTo(await libraryImage(1));
      expect(post.status).toBe('failed');
      expect(post.results[0]).toEqual(
        expect.objectContaining({ status: 'failed', error_code: 'media_invalid', platform_post_id: null, attempts: 1 }),
      );
      expect(post.results[0]!.error_message).toContain(
        'Instagram could not fetch the media from its URL: the URL must serve the file publicly',
      );
      expect(post.results[0]!.error_message).toContain('error code 2207052');
      expect((await system.sandbox.posts('instagram')).filter((item) => item.text === text)).toEqual([]);
    });
  });
});
