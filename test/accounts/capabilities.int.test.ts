import request from 'supertest';
import { connectAccount, NETWORKS, type Network } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

describe('GET /v1/accounts/{account_id}/capabilities', () => {
  let system: SystemHarness;
  let auth: string;
  const accounts = {} as Record<Network, string>;

  const capabilities = (id: string, credential = auth) =>
    request(system.gateway).get(`/v1/accounts/${id}/capabilities`).set('Authorization', credential);

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts'] });
    auth = `Bearer ${await system.token()}`;
    for (const network of NETWORKS) accounts[network] = await connectAccount(system, auth, network);
  }, 60_000);

  afterAll(async () => system?.close());

  it('describes what each network supports today, from the rule tables', async () => {
    const expected: Record<Network, { post_types: string[]; max_text_length: number; max_media: number }> = {
      instagram: { post_types: ['feed', 'reel', 'story'], max_text_length: 2200, max_media: 10 },
      facebook: { post_types: ['feed', 'reel'], max_text_length: 63206, max_media: 10 },
      linkedin: { post_types: ['post', 'document'], max_text_length: 3000, max_media: 20 },
      tiktok: { post_types: ['video', 'photo', 'draft'], max_text_length: 2200, max_media: 35 },
      x: { post_types: ['post'], max_text_length: 280, max_media: 4 },
    };
    for (const network of NETWORKS) {
      const res = await capabilities(accounts[network]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        account_id: accounts[network],
        provider: network,
        ...expected[network],
        // A first comment everywhere but TikTok, whose API cannot comment; threads on X only.
        first_comment: network !== 'tiktok',
        threads: network === 'x',
        alt_text: network !== 'tiktok',
        alt_text_max_length: { instagram: 1000, facebook: 1000, x: 1000, linkedin: 4086, tiktok: null }[network],
      });
      expect(Object.keys(res.body.post_type_rules)).toEqual(expected[network].post_types);
      expect(Array.isArray(res.body.scopes)).toBe(true);
      expect(res.body.media.image.mime_types).toContain('image/jpeg');
      expect(res.body.media.video.mime_types).toContain('video/mp4');
      expect(res.body.media.image.max_bytes).toBeGreaterThan(0);
      // PDFs are LinkedIn's alone (document posts).
      expect([network, res.body.media.document?.mime_types]).toEqual([
        network,
        network === 'linkedin' ? ['application/pdf'] : undefined,
      ]);
    }
    const instagram = (await capabilities(accounts.instagram)).body;
    // PNG goes out as its JPEG rendition; the aspect ratio rule is Instagram's.
    expect(instagram.media.image.mime_types).toEqual(expect.arrayContaining(['image/jpeg', 'image/png']));
    expect(instagram.media.image.aspect_ratio).toEqual({ min: 0.8, max: 1.91 });
    expect(instagram.post_type_rules.reel).toEqual({
      media_kinds: ['video'],
      min_media: 1,
      max_media: 1,
      duration_seconds: { min: 3, max: 900 },
    });
    expect(instagram.alt_text_media_kinds).toEqual(['image']);
    expect((await capabilities(accounts.facebook)).body.post_type_rules.reel).toEqual({
      media_kinds: ['video'],
      min_media: 1,
      max_media: 1,
      duration_seconds: { min: 3, max: 90 },
    });
    expect((await capabilities(accounts.tiktok)).body.post_type_rules.photo).toMatchObject({ media_kinds: ['image'] });
    expect((await capabilities(accounts.x)).body.media).toMatchObject({
      image: { max_count: 4 },
      video: { max_count: 1 },
    });
  });

  it('answers 404 for an account of another organization, or none', async () => {
    const other = `Bearer ${await system.token()}`;
    const foreign = await capabilities(accounts.x, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await capabilities('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});
