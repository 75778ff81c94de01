import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal } from './publishing-support.ts';

interface Page {
  items: {
    id: string;
    job_id: string;
    status: string;
    text: string;
    providers: string[];
    created_at: string;
    results: { provider: string; status: string; platform_post_id: string | null }[];
  }[];
  next_cursor: string | null;
  total: number;
}

describe('publishing: history', () => {
  let system: SystemHarness;
  let auth: string;
  let x: string;
  let linkedin: string;
  const created: string[] = [];
  const TOTAL = 150;

  const list = async (path: string, query: Record<string, string | number>) => {
    const res = await request(system.gateway).get(path).query(query).set('Authorization', auth);
    expect(res.status).toBe(200);
    return res.body as Page;
  };

  async function walk(
    path: string,
    query: Record<string, string | number>,
  ): Promise<{ ids: string[]; keys: [string, string][]; totals: number[]; pages: number }> {
    const ids: string[] = [];
    const keys: [string, string][] = [];
    const totals: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(path, { ...query, ...(cursor === null ? {} : { cursor }) });
      ids.push(...page.items.map((item) => item.id));
      keys.push(...page.items.map((item): [string, string] => [item.created_at, item.id]));
      totals.push(page.total);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 500);
    return { ids, keys, totals, pages };
  }

  /** Newest first: created_at descending, ties (same millisecond) broken by id descending. */
  const ordered = (keys: [string, string][]) =>
    keys.every(([at, id], index) => {
      if (index === 0) return true;
      const [prevAt, prevId] = keys[index - 1]!;
      return prevAt > at || (prevAt === at && prevId > id);
    });

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher', 'scheduler'] });
    auth = `Bearer ${await system.token()}`;
    x = await connectAccount(system, auth, 'x');
    linkedin = await connectAccount(system, auth, 'linkedin');
    for (let i = 0; i < TOTAL; i += 1) {
      const words = i % 3 === 0 ? 'alpha launch' : i % 3 === 1 ? 'beta release' : 'gamma notes';
      const body: Record<string, unknown> = {
        account_ids: i % 2 === 0 ? [x] : [linkedin],
        text: `Post ${i}: ${words} of the week`,
      };
      if (i % 10 === 0) body.scheduled_at = new Date(Date.now() + 3600_000).toISOString();
      const res = await request(system.gateway).post('/v1/publish').set('Authorization', auth).send(body);
      expect(res.status).toBe(202);
      created.push(res.body.job_id as string);
    }
  }, 120_000);

  afterAll(async () => system?.close());

  it('walks the whole history newest first without gaps or duplicates, at any page size', async () => {
    for (const limit of [7, 50, 100]) {
      const { ids, keys, totals, pages } = await walk('/v1/publish', { limit });
      expect(ids).toHaveLength(TOTAL);
      expect(new Set(ids).size).toBe(TOTAL);
      expect(new Set(ids)).toEqual(new Set(created));
      expect(ordered(keys)).toBe(true);
      expect(new Set(totals)).toEqual(new Set([TOTAL]));
      expect(pages).toBe(Math.ceil(TOTAL / limit));
    }
  });

  it('defaults to 50 and lists posts the same way', async () => {
    const jobs = await list('/v1/publish', {});
    expect(jobs.items).toHaveLength(50);
    expect(jobs.items[0]).toEqual(expect.objectContaining({ id: created[TOTAL - 1], job_id: created[TOTAL - 1] }));
    const { ids } = await walk('/v1/posts', { limit: 40 });
    expect(ids).toEqual((await walk('/v1/publish', { limit: 100 })).ids);
  });

  it('filters by status and provider, with total counting the filtered set', async () => {
    const scheduled = await walk('/v1/publish', { status: 'scheduled', limit: 4 });
    expect(scheduled.ids).toHaveLength(TOTAL / 10);
    expect(scheduled.totals[0]).toBe(TOTAL / 10);
    const onLinkedin = await walk('/v1/publish', { provider: 'linkedin', limit: 30 });
    expect(onLinkedin.ids).toHaveLength(TOTAL / 2);
    expect(onLinkedin.totals[0]).toBe(TOTAL / 2);
    const page = await list('/v1/publish', { provider: 'x', limit: 5 });
    expect(page.items.every((item) => item.providers.includes('x'))).toBe(true);
  });

  it('searches post text with full-text search', async () => {
    const alpha = await walk('/v1/publish', { q: 'alpha', limit: 20 });
    expect(alpha.ids).toHaveLength(TOTAL / 3);
    expect(alpha.totals[0]).toBe(TOTAL / 3);
    const page = await list('/v1/publish', { q: 'beta release', limit: 100 });
    expect(page.total).toBe(TOTAL / 3);
    expect(page.items.every((item) => item.text.includes('beta release'))).toBe(true);
    expect((await list('/v1/publish', { q: 'alpha -launch', limit: 10 })).total).toBe(0);
    expect((await list('/v1/publish', { q: 'nothing-matches-this', limit: 10 })).total).toBe(0);
    const combined = await list('/v1/publish', { q: 'gamma', provider: 'linkedin', limit: 100 });
    expect(combined.total).toBe(25);
  });

  it('rejects bad limits and cursors with 400', async () => {
    for (const query of [{ limit: 0 }, { limit: 101 }, { cursor: 'not-a-cursor' }, { status: 'done' }]) {
      const res = await request(system.gateway).get('/v1/publish').query(query).set('Authorization', auth);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('lists a finished job with its results (provider, status, native id) and filters by any status', async () => {
    const jobId = created[1]!; // immediate, to LinkedIn
    await waitForFinal(system, auth, jobId);
    const items: Page['items'] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list('/v1/publish', {
        status: 'published',
        limit: 100,
        ...(cursor === null ? {} : { cursor }),
      });
      items.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(items.every((entry) => entry.status === 'published')).toBe(true);
    expect(items.find((entry) => entry.job_id === jobId)).toEqual(
      expect.objectContaining({
        status: 'published',
        providers: ['linkedin'],
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        results: [
          expect.objectContaining({ provider: 'linkedin', status: 'published', platform_post_id: expect.any(String) }),
        ],
      }),
    );
    const scheduled = await list('/v1/publish', { status: 'scheduled', limit: 100 });
    expect(scheduled.items.length).toBeGreaterThan(0);
    expect(
      scheduled.items.every(
        (entry) =>
          entry.status === 'scheduled' &&
          entry.results.every((result) => result.status === 'pending' && result.platform_post_id === null),
      ),
    ).toBe(true);
  });

  it('shows nothing of other organizations', async () => {
    const other = await request(system.gateway)
      .get('/v1/publish')
      .set('Authorization', `Bearer ${await system.token()}`);
    expect(other.body).toEqual({ items: [], next_cursor: null, total: 0 });
  });
});
