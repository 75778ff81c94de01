import request from 'supertest';
import { connectAccount, NETWORKS, validBody, waitForFinal } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

// scripts/start's defaults: no TIKTOK_VERIFIED_URL_PREFIXES, the media library's own address being
// the domain verified with TikTok.
describe('TikTok photos from the media library, with no TIKTOK_VERIFIED_URL_PREFIXES', () => {
  let system: SystemHarness;
  let auth: string;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'], env: { TIKTOK_VERIFIED_URL_PREFIXES: '' } });
    auth = `Bearer ${await system.token()}`;
  }, 60_000);

  afterAll(async () => system?.close());

  it('publishes an image from media_urls on all five networks', async () => {
    const accounts = [];
    for (const network of NETWORKS) accounts.push(await connectAccount(system, auth, network));
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send(validBody(system, accounts));
    expect(res.status).toBe(202);
    const done = await waitForFinal(system, auth, res.body.job_id as string, 60_000);
    expect(done.results.map((result) => [result.provider, result.status, result.error_code])).toEqual(
      NETWORKS.map((network) => [network, 'published', null]),
    );
  }, 90_000);
});
