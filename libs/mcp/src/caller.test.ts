import { httpCaller } from './caller.ts';
import type { OpenApiDocument } from './openapi-input.ts';

const document: OpenApiDocument = {
  paths: {
    '/v1/posts': { get: { operationId: 'listPosts' }, post: { operationId: 'createPost' } },
    '/v1/posts/{post_id}': { get: { operationId: 'getPost' } },
  },
};

function recordingFetch(status: number, text: string) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fake = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(text, { status });
  }) as unknown as typeof fetch;
  return { calls, fake };
}

describe('httpCaller', () => {
  it('builds the URL from the path template and query, with the Authorization given', async () => {
    const { calls, fake } = recordingFetch(200, '{"id":"p/1"}');
    const call = httpCaller({ baseUrl: 'http://api.local/', authorization: 'Bearer svc_k', document, fetch: fake });
    expect(await call('getPost', { path: { post_id: 'p/1' }, query: { expand: true, skip: undefined } })).toEqual({
      status: 200,
      body: { id: 'p/1' },
    });
    expect(calls[0]!.url).toBe('http://api.local/v1/posts/p%2F1?expand=true');
    expect(calls[0]!.init).toMatchObject({ method: 'GET', headers: { authorization: 'Bearer svc_k' } });
    expect(calls[0]!.init.headers).not.toHaveProperty('idempotency-key');
  });

  it('sends a fresh Idempotency-Key with each POST and the body as JSON', async () => {
    const { calls, fake } = recordingFetch(202, '{}');
    const call = httpCaller({ baseUrl: 'http://api.local', authorization: 'Bearer svc_k', document, fetch: fake });
    await call('createPost', { body: { text: 'a' } });
    await call('createPost', { body: { text: 'a' } });
    const keys = calls.map((c) => (c.init.headers as Record<string, string>)['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(calls[0]!.init).toMatchObject({ method: 'POST', body: '{"text":"a"}' });
  });

  it('returns an API error as an answer, and throws on a body that is not JSON', async () => {
    const error = { error: { code: 'not_found', message: 'Post was not found.', request_id: 'r1' } };
    const notFound = recordingFetch(404, JSON.stringify(error));
    const call = httpCaller({ baseUrl: 'http://api.local', authorization: 'x', document, fetch: notFound.fake });
    expect(await call('getPost', { path: { post_id: 'p' } })).toEqual({ status: 404, body: error });
    const html = recordingFetch(502, '<html>Bad gateway</html>');
    const broken = httpCaller({ baseUrl: 'http://api.local', authorization: 'x', document, fetch: html.fake });
    await expect(broken('listPosts', {})).rejects.toThrow('listPosts answered 502 with a body that is not JSON.');
  });
});
