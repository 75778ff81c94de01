import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount } from './publishing-support.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** Every organization's monthly posts in this system: one 500-row bulk and a little more. */
const MONTHLY_POSTS = 520;

interface Problem {
  row: number;
  account_id: string | null;
  path: string;
  rule: string;
  message: string;
}

describe('POST /v1/posts/bulk', () => {
  let system: SystemHarness;
  let auth: string;
  let x: string;
  let linkedin: string;
  let orgSeq = 0;

  const later = () => new Date(Date.now() + 24 * 3600_000).toISOString();
  const bulk = (body: unknown, credential = auth) =>
    request(system.gateway)
      .post('/v1/posts/bulk')
      .set('Authorization', credential)
      .send(body as object);
  const total = async (credential = auth) =>
    (await request(system.gateway).get('/v1/posts').set('Authorization', credential)).body.total as number;
  const newOrg = async () => {
    const token = `Bearer ${await system.token(`org_bulk_${Date.now()}_${orgSeq++}`)}`;
    return { auth: token, linkedin: await connectAccount(system, token, 'linkedin') };
  };

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher', 'scheduler'],
      env: { PLAN_FREE_POSTS_PER_MONTH: String(MONTHLY_POSTS) },
    });
    ({ auth, linkedin } = await newOrg());
    x = await connectAccount(system, auth, 'x');
  }, 60_000);

  afterAll(async () => system?.close());

  it('creates every post of a JSON bulk, in row order, each a post like POST /v1/posts makes', async () => {
    const before = await total();
    const at = later();
    const res = await bulk({
      posts: [
        { account_ids: [x], text: 'bulk one' },
        { account_ids: [x, linkedin], text: 'bulk two', scheduled_at: at },
        { account_ids: [linkedin], text: 'bulk three', platform_options: { linkedin: {} } },
      ],
    });
    expect(res.status).toBe(202);
    const items = res.body.items as { id: string; text: string; status: string; account_ids: string[] }[];
    expect(items.map((item) => [item.text, item.status])).toEqual([
      ['bulk one', 'queued'],
      ['bulk two', 'scheduled'],
      ['bulk three', 'queued'],
    ]);
    expect(new Set(items.map((item) => item.id)).size).toBe(3);
    expect(await total()).toBe(before + 3);
    const second = await request(system.gateway).get(`/v1/posts/${items[1]!.id}`).set('Authorization', auth);
    expect(second.body).toMatchObject({ account_ids: [x, linkedin], scheduled_at: new Date(at).toISOString() });
  });

  it('reports every problem of every row and creates nothing when any row is wrong', async () => {
    const before = await total();
    const res = await bulk({
      posts: [
        { account_ids: [x], text: 'fine' },
        { account_ids: [x, UNKNOWN_ID], text: 'y'.repeat(300) },
        { account_ids: [linkedin], text: 'late', scheduled_at: new Date(Date.now() - 60_000).toISOString() },
        { account_ids: [linkedin], text: 'fine too' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const details = res.body.error.details as Problem[];
    expect(
      details.map((problem) => `${problem.row} ${problem.account_id ?? '-'} ${problem.path} ${problem.rule}`),
    ).toEqual([
      `2 ${x} /account_ids/0 text_length`,
      `2 ${UNKNOWN_ID} /account_ids/1 unknown_account`,
      '3 - /scheduled_at scheduled_at_lead',
    ]);
    expect(res.body.error.message).toMatch(/2 of the 4 posts/);
    expect(await total()).toBe(before);
  });

  it('reports a row that does not fit the schema with its row number', async () => {
    const res = await bulk({
      posts: [
        { account_ids: [x], text: 'ok' },
        { account_ids: [x], text: '', colour: 'red' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ row: 2, account_id: null, path: '/text', rule: 'minLength' }),
        expect.objectContaining({ row: 2, path: '/colour', rule: 'additionalProperties' }),
      ]),
    );
    expect((await bulk({ posts: [] })).status).toBe(400);
    const tooMany = Array.from({ length: 501 }, () => ({ account_ids: [x], text: 'hi' }));
    expect((await bulk({ posts: tooMany })).status).toBe(400);
  });

  it('answers a retry with the same Idempotency-Key with the same posts, creating nothing more', async () => {
    const body = {
      posts: [
        { account_ids: [x], text: 'once a' },
        { account_ids: [linkedin], text: 'once b' },
      ],
    };
    const before = await total();
    const first = await bulk(body).set('Idempotency-Key', 'bulk-key-1');
    expect(first.status).toBe(202);
    const again = await bulk(body).set('Idempotency-Key', 'bulk-key-1');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await total()).toBe(before + 2);
    const other = await bulk({ posts: [{ account_ids: [x], text: 'another body' }] }).set(
      'Idempotency-Key',
      'bulk-key-1',
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(await total()).toBe(before + 2);
  });

  it('takes 500 rows larger than the ordinary body limit in one request, and refuses a bulk the month cannot take whole', async () => {
    const org = await newOrg();
    const at = later();
    // 500 posts of 2,500 characters: about 1.3 MB, past BODY_LIMIT_BYTES (1 MiB), within BULK_BODY_LIMIT_BYTES.
    const posts = Array.from({ length: 500 }, (_, i) => ({
      account_ids: [org.linkedin],
      text: `${i} ${'z'.repeat(2500)}`,
      scheduled_at: at,
    }));
    const big = await bulk({ posts }, org.auth);
    expect(big.status).toBe(202);
    expect((big.body.items as { text: string }[]).map((item) => item.text.split(' ')[0])).toEqual(
      posts.map((_, i) => String(i)),
    );
    expect(await total(org.auth)).toBe(500);

    const left = MONTHLY_POSTS - 500;
    const over = await bulk(
      { posts: Array.from({ length: left + 1 }, () => ({ account_ids: [org.linkedin], text: 'over' })) },
      org.auth,
    );
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('plan_limit_reached');
    expect(over.body.error.message).toMatch(/nothing was created/);
    expect(await total(org.auth)).toBe(500);
    // The refused bulk used none of the month: exactly what was left still fits.
    const fits = await bulk(
      { posts: Array.from({ length: left }, () => ({ account_ids: [org.linkedin], text: 'fits', scheduled_at: at })) },
      org.auth,
    );
    expect(fits.status).toBe(202);
    expect(await total(org.auth)).toBe(MONTHLY_POSTS);
  }, 60_000);

  describe('a CSV upload', () => {
    const upload = (csv: string | Buffer, fields: Record<string, string> = {}, credential = auth) => {
      let req = request(system.gateway).post('/v1/posts/bulk').set('Authorization', credential);
      for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
      return req.attach('file', Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'), {
        filename: 'posts.csv',
        contentType: 'text/csv',
      });
    };

    it('creates a post per row: BOM, CRLF, quoted commas, quotes and line breaks, | lists', async () => {
      const before = await total();
      const at = later();
      const csv =
        '\ufeffaccount_ids,text,media_urls,scheduled_at\r\n' +
        `${x}|${linkedin},"Hello, ""world""",,${at}\r\n` +
        `${linkedin},"two lines,\r\nin one post",,\r\n`;
      const res = await upload(csv);
      expect(res.status).toBe(202);
      const items = res.body.items as { text: string; account_ids: string[]; status: string }[];
      expect(items.map((item) => [item.text, item.account_ids, item.status])).toEqual([
        ['Hello, "world"', [x, linkedin], 'scheduled'],
        ['two lines,\r\nin one post', [linkedin], 'queued'],
      ]);
      expect(await total()).toBe(before + 2);
    });

    it('a CSV with broken rows reported row by row, and nothing created', async () => {
      const before = await total();
      const csv = [
        'account_ids,text,media_urls,scheduled_at',
        `${x},fine,,`,
        `${x},too,many,columns,here`,
        `${UNKNOWN_ID},"unknown account",,`,
        `,no account,,`,
        `${linkedin},"late",,2000-01-01T00:00:00Z`,
        '',
        `${x},"${'y'.repeat(300)}",,`,
        `${x},"a quote never closed,,`,
        `${x},swallowed by the open quote,,`,
      ].join('\n');
      const res = await upload(csv);
      expect(res.status).toBe(400);
      const details = res.body.error.details as Problem[];
      expect(details.map((problem) => `${problem.row} ${problem.rule} ${problem.path}`)).toEqual([
        '2 csv ',
        '3 unknown_account /account_ids/0',
        '4 minItems /account_ids',
        '5 scheduled_at_lead /scheduled_at',
        '6 text_length /account_ids/0',
        '7 csv ',
      ]);
      expect(details[1]).toMatchObject({ account_id: UNKNOWN_ID });
      expect(details[0]!.message).toMatch(/Record Length/i);
      expect(await total()).toBe(before);
    });

    it('refuses a header that is not the documented one, a missing file part and an empty file', async () => {
      const header = await upload(`account,text\n${x},hi\n`);
      expect(header.status).toBe(400);
      expect(header.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ rule: 'csv_header', path: '/file/header/0' })]),
      );
      const noFile = await request(system.gateway)
        .post('/v1/posts/bulk')
        .set('Authorization', auth)
        .field('dry_run', 'true');
      expect(noFile.status).toBe(400);
      expect((await upload('account_ids,text\n')).status).toBe(400);
    });
  });

  describe('dry run', () => {
    it('answers 200 with every problem of every row, creating nothing and recording no key', async () => {
      const before = await total();
      const body = {
        dry_run: true,
        posts: [
          { account_ids: [x], text: 'fine' },
          { account_ids: [UNKNOWN_ID], text: 'unknown' },
        ],
      };
      const res = await bulk(body).set('Idempotency-Key', 'bulk-dry-1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        valid: false,
        problems: [
          expect.objectContaining({ row: 2, account_id: UNKNOWN_ID, path: '/account_ids/0', rule: 'unknown_account' }),
        ],
      });
      const fine = await bulk({ dry_run: true, posts: [body.posts[0]] });
      expect(fine.body).toEqual({ valid: true, problems: [] });
      expect(await total()).toBe(before);
      // The key recorded nothing: it is fresh for a real bulk.
      const created = await bulk({ posts: [body.posts[0]] }).set('Idempotency-Key', 'bulk-dry-1');
      expect(created.status).toBe(202);
      expect(created.headers['idempotent-replayed']).toBeUndefined();
    });

    it("lists a CSV's unreadable rows with the checked rows' problems", async () => {
      const before = await total();
      const csv = `account_ids,text\n${x},ok\n${x},two,extra\n${UNKNOWN_ID},who\n`;
      const res = await request(system.gateway)
        .post('/v1/posts/bulk')
        .set('Authorization', auth)
        .field('dry_run', 'true')
        .attach('file', Buffer.from(csv), { filename: 'p.csv', contentType: 'text/csv' });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(false);
      expect((res.body.problems as Problem[]).map((problem) => `${problem.row} ${problem.rule}`)).toEqual([
        '2 csv',
        '3 unknown_account',
      ]);
      expect(await total()).toBe(before);
    });
  });
});
