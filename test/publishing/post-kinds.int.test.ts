import { uniqueName } from '@svc/testing';
import { PDFDocument } from 'pdf-lib';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal, type Network } from './publishing-support.ts';

interface Problem {
  account_id?: string;
  path: string;
  rule: string;
  message: string;
}

/**
 * Alt text and post kinds end to end (docs/api-conventions.md, "Alt text and post kinds"): accepted
 * by `POST /v1/posts` and `/v1/publish`, refused before enqueue where a network or its media cannot
 * take them (a 400 naming the account and the rule, nothing created), and delivered in each network's
 * own shape, read back from the sandbox.
 */
describe('publishing: alt text and post kinds', () => {
  let system: SystemHarness;
  let auth: string;
  const accounts = {} as Record<Network, string>;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'] });
    auth = `Bearer ${await system.token(uniqueName('org_kinds'))}`;
    for (const network of ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const)
      accounts[network] = await connectAccount(system, auth, network);
  }, 180_000);
  afterAll(async () => system?.close(), 120_000);

  const image = () => system.media.url('/image.jpg');
  const video = () => system.media.url('/video.mp4');
  const post = (body: Record<string, unknown>, path = '/v1/posts') =>
    request(system.gateway).post(path).set('Authorization', auth).send(body);
  const history = async () =>
    (await request(system.gateway).get('/v1/posts').set('Authorization', auth)).body.total as number;
  const published = async (body: Record<string, unknown>) => {
    const res = await post({ text: `kinds ${uniqueName('post')}`, ...body });
    expect(res.status).toBe(202);
    const final = await waitForFinal(system, auth, res.body.id as string, 30_000);
    expect(final.results.map((result) => [result.provider, result.status, result.error_message])).toEqual(
      final.results.map((result) => [result.provider, 'published', null]),
    );
    return final;
  };
  const sandboxPost = async (network: Network, id: string) =>
    (await system.sandbox.posts(network)).find((item) => item.id === id);

  it('delivers each image its alt text on Instagram, Facebook, X and LinkedIn', async () => {
    const networks = ['instagram', 'facebook', 'x', 'linkedin'] as const;
    const final = await published({
      account_ids: networks.map((network) => accounts[network]),
      media_urls: [image(), image()],
      media_alt_text: ['a red door', ''],
    });
    for (const result of final.results) {
      const delivered = await sandboxPost(result.provider as Network, result.platform_post_id!);
      expect([result.provider, delivered?.media.map((item) => item.alt_text)]).toEqual([
        result.provider,
        ['a red door', undefined],
      ]);
    }
  });

  it('takes the same names on /v1/publish', async () => {
    const res = await post(
      {
        account_ids: [accounts.x],
        text: `publish ${uniqueName('job')}`,
        media_urls: [image()],
        media_alt_text: ['via publish'],
      },
      '/v1/publish',
    );
    expect(res.status).toBe(202);
    const final = await waitForFinal(system, auth, res.body.job_id as string, 30_000);
    const delivered = await sandboxPost('x', final.results[0]!.platform_post_id!);
    expect(delivered?.media[0]?.alt_text).toBe('via publish');
  });

  it('publishes an Instagram reel and story, a TikTok photo post and a TikTok inbox draft', async () => {
    const reel = await published({
      account_ids: [accounts.instagram],
      media_urls: [video()],
      platform_options: { instagram: { post_type: 'reel' } },
    });
    expect((await sandboxPost('instagram', reel.results[0]!.platform_post_id!))?.options.media_type).toBe('REELS');
    expect(reel.results[0]!.platform_post_url).toContain('/reel/');
    const story = await published({
      account_ids: [accounts.instagram],
      media_urls: [image()],
      platform_options: { instagram: { post_type: 'story' } },
    });
    expect(await sandboxPost('instagram', story.results[0]!.platform_post_id!)).toMatchObject({
      text: '',
      options: { media_type: 'STORIES' },
    });
    const photoText = `photo mode ${uniqueName('post')}`;
    await published({
      text: photoText,
      account_ids: [accounts.tiktok],
      media_urls: [image(), image()],
      platform_options: { tiktok: { post_type: 'photo', privacy_level: 'SELF_ONLY' } },
    });
    const photos = await system.sandbox.posts('tiktok');
    expect(photos.find((item) => item.text === photoText)).toMatchObject({
      options: { post_mode: 'DIRECT_POST', privacy_level: 'SELF_ONLY' },
      media: [{ kind: 'image' }, { kind: 'image' }],
    });
    const draft = await published({
      account_ids: [accounts.tiktok],
      media_urls: [video()],
      platform_options: { tiktok: { post_type: 'draft' } },
    });
    // Published here means delivered to the creator's inbox: the id is TikTok's publish_id.
    expect(draft.results[0]!.platform_post_id).toMatch(/^v_inbox_/);
    expect(await sandboxPost('tiktok', draft.results[0]!.platform_post_id!)).toMatchObject({
      options: { post_mode: 'MEDIA_UPLOAD' },
      media: [{ kind: 'video' }],
    });
  });

  it('publishes a Facebook reel: the video id and the reel URL', async () => {
    const reel = await published({
      account_ids: [accounts.facebook],
      media_urls: [system.media.url('/reel.mp4')],
      platform_options: { facebook: { post_type: 'reel' } },
    });
    const [result] = reel.results;
    expect(result!.platform_post_url).toBe(`https://www.facebook.com/reel/${result!.platform_post_id}`);
    expect(await sandboxPost('facebook', result!.platform_post_id!)).toMatchObject({
      options: { post_type: 'reel' },
      media: [{ kind: 'video' }],
    });
  });

  /** A PDF of `pages` blank pages uploaded to the library (made here with pdf-lib). */
  const uploadPdf = async (pages: number) => {
    const document = await PDFDocument.create();
    for (let page = 0; page < pages; page += 1) document.addPage([200, 200]);
    return request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .attach('file', Buffer.from(await document.save()), 'deck.pdf');
  };

  it('publishes a LinkedIn document: a PDF from the library, its pages counted, posted with its title', async () => {
    const upload = await uploadPdf(4);
    expect(upload.status).toBe(201);
    expect(upload.body).toMatchObject({
      content_type: 'application/pdf',
      kind: 'document',
      page_count: 4,
      compatibility: { linkedin: { ok: true }, x: { ok: false, rule: 'format' } },
    });
    const final = await published({
      account_ids: [accounts.linkedin],
      media_ids: [upload.body.media_id],
      platform_options: { linkedin: { post_type: 'document', title: 'Quarterly deck' } },
    });
    expect(await sandboxPost('linkedin', final.results[0]!.platform_post_id!)).toMatchObject({
      media: [{ url: expect.stringMatching(/^urn:li:document:/), kind: 'document' }],
      options: { title: 'Quarterly deck' },
    });
    const capabilities = await request(system.gateway)
      .get(`/v1/accounts/${accounts.linkedin}/capabilities`)
      .set('Authorization', auth);
    expect(capabilities.body.post_types).toEqual(['post', 'document']);
    expect(capabilities.body.post_type_rules.document).toMatchObject({ media_kinds: ['document'], max_pages: 300 });
    expect(capabilities.body.media.document).toEqual({
      mime_types: ['application/pdf'],
      max_bytes: 100 * 1024 * 1024,
      max_count: 1,
      max_pages: 300,
    });
  });

  it('refuses a PDF of 301 pages at upload, a document to X, and reports a document post without title in validate', async () => {
    const long = await uploadPdf(301);
    expect([long.status, long.body.error?.details?.[0]?.rule]).toEqual([400, 'max_pages']);
    const pdf = (await uploadPdf(2)).body.media_id as string;
    const before = await history();
    const toX = await post({ text: 'a deck', account_ids: [accounts.x], media_ids: [pdf] });
    expect([toX.status, toX.body.error?.code]).toEqual([400, 'validation_error']);
    expect(toX.body.error.details as Problem[]).toEqual(
      expect.arrayContaining([expect.objectContaining({ account_id: accounts.x, rule: 'document_unsupported' })]),
    );
    expect(await history()).toBe(before);
    const checked = await request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', auth)
      .send({
        account_ids: [accounts.linkedin],
        text: 'a deck',
        media_ids: [pdf],
        platform_options: { linkedin: { post_type: 'document' } },
      });
    expect(checked.status).toBe(200);
    expect((checked.body.problems as Problem[]).map((problem) => problem.rule)).toEqual(['document_title']);
  });

  it('refuses before enqueue what a network or its media cannot take, naming the account and the rule', async () => {
    const before = await history();
    const refusals: [Record<string, unknown>, Partial<Problem>][] = [
      [
        { account_ids: [accounts.x], media_urls: [image(), image()], media_alt_text: ['only one'] },
        { rule: 'alt_text_count', path: '/body/media_alt_text' },
      ],
      [
        {
          account_ids: [accounts.tiktok],
          media_urls: [image()],
          media_alt_text: ['a cat'],
          platform_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
        },
        { rule: 'alt_text_unsupported', account_id: accounts.tiktok, path: '/body/media_alt_text' },
      ],
      [
        { account_ids: [accounts.x], media_urls: [image()], media_alt_text: ['a'.repeat(1001)] },
        { rule: 'alt_text_length', account_id: accounts.x },
      ],
      [
        {
          account_ids: [accounts.instagram],
          media_urls: [image()],
          platform_options: { instagram: { post_type: 'reel' } },
        },
        { rule: 'media_kind_mismatch', account_id: accounts.instagram },
      ],
      [
        {
          account_ids: [accounts.facebook],
          media_urls: [video()],
          platform_options: { facebook: { post_type: 'story' } },
        },
        { rule: 'post_type_unsupported', account_id: accounts.facebook },
      ],
      // The library measures the file (ffprobe): 91 s is past a Facebook reel's 90, and 640x360 is not 9:16.
      [
        {
          account_ids: [accounts.facebook],
          media_urls: [system.media.url('/reel-long.mp4')],
          platform_options: { facebook: { post_type: 'reel' } },
        },
        { rule: 'reel_duration', account_id: accounts.facebook },
      ],
      [
        {
          account_ids: [accounts.facebook],
          media_urls: [video()],
          platform_options: { facebook: { post_type: 'reel' } },
        },
        { rule: 'reel_aspect_ratio', account_id: accounts.facebook },
      ],
      [
        {
          account_ids: [accounts.tiktok],
          media_urls: [image()],
          platform_options: { tiktok: { post_type: 'video', privacy_level: 'SELF_ONLY' } },
        },
        { rule: 'media_kind_mismatch', account_id: accounts.tiktok },
      ],
    ];
    for (const [body, expected] of refusals) {
      const res = await post({ text: 'refused', ...body });
      expect([res.status, res.body.error?.code]).toEqual([400, 'validation_error']);
      expect(res.body.error.details as Problem[]).toEqual(expect.arrayContaining([expect.objectContaining(expected)]));
    }
    expect(await history()).toBe(before);
  });

  it('validate lists every problem of every target at once', async () => {
    const res = await request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', auth)
      .send({
        account_ids: [accounts.instagram, accounts.tiktok, accounts.x],
        text: 'check me',
        media_urls: [image()],
        media_alt_text: ['a'.repeat(1001)],
        platform_options: { instagram: { post_type: 'reel' }, tiktok: { post_type: 'draft' } },
      });
    expect(res.status).toBe(200);
    const rules = (res.body.problems as Problem[]).map((problem) => [problem.account_id, problem.rule]);
    expect(rules).toEqual(
      expect.arrayContaining([
        [accounts.instagram, 'media_kind_mismatch'],
        [accounts.tiktok, 'alt_text_unsupported'],
        [accounts.x, 'alt_text_length'],
      ]),
    );
    expect(res.body.valid).toBe(false);
    // A media URL is read, not imported: its head gives the facts a Facebook reel is checked against.
    const reel = await request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', auth)
      .send({
        account_ids: [accounts.facebook],
        text: 'check my reel',
        media_urls: [system.media.url('/reel-long.mp4')],
        platform_options: { facebook: { post_type: 'reel' } },
      });
    expect(reel.body).toMatchObject({
      valid: false,
      problems: [expect.objectContaining({ account_id: accounts.facebook, rule: 'reel_duration' })],
    });
  });
});
