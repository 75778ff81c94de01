import request from 'supertest';
import { operations } from '../src/openapi/operations.ts';
import { startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

let h: GatewayHarness;
let token: string;
beforeAll(async () => {
  h = await startGatewayHarness();
  token = await h.token();
});
afterAll(async () => {
  await h.close();
});

describe('gateway edge', () => {
  it('answers GET /health without auth', async () => {
    const res = await request(h.app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a valid X-Request-Id and replaces an unsafe one', async () => {
    expect((await request(h.app).get('/health').set('X-Request-Id', 'req-123.abc')).headers['x-request-id']).toBe(
      'req-123.abc',
    );
    expect(
      (await request(h.app).get('/health').set('X-Request-Id', 'bad id\twith spaces')).headers['x-request-id'],
    ).not.toContain(' ');
  });

  it('answers unknown routes with the error body', async () => {
    const res = await request(h.app).get('/v1/nope').set('X-Request-Id', 'rid-1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 'not_found', message: 'There is no endpoint GET /v1/nope.', request_id: 'rid-1' },
    });
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', message: 'The request body is not valid JSON.' });
  });

  it('rejects unknown fields, naming them', async () => {
    const res = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k', admin: true });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: '/body/admin', message: 'unknown field "admin"' }]);
  });

  it('rejects a missing body and a wrong content type', async () => {
    const missing = await request(h.app).post('/v1/api-keys').set('Authorization', `Bearer ${token}`);
    expect(missing.status).toBe(400);
    const text = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'text/plain')
      .send('name=k');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
  });

  it('limits JSON bodies to 1 MiB with 413', async () => {
    const res = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(1_048_600) }));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('authenticates before reading a body: an anonymous megabyte is refused with 401, unparsed', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1_048_600) });
    const anonymous = await request(h.app).post('/v1/api-keys').set('Content-Type', 'application/json').send(big);
    expect(anonymous.status).toBe(401);
    const malformed = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', 'Bearer svc_wrong')
      .set('Content-Type', 'application/json')
      .send('{not json');
    expect(malformed.status).toBe(401);
  });

  it('rejects unknown query parameters on endpoints that take none', async () => {
    const res = await request(h.app).get('/v1/api-keys?admin=1').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('/query/admin');
  });

  it('serves one OpenAPI 3.1 document naming every endpoint of the spec', async () => {
    const res = await request(h.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'POST /v1/publish',
      'GET /v1/publish',
      'POST /v1/publish/{job_id}/cancel',
      'POST /v1/posts',
      'GET /v1/posts',
      'GET /v1/posts/{post_id}',
      'POST /v1/posts/{post_id}/cancel',
      'POST /v1/media',
      'POST /v1/media/verify',
      'GET /v1/media',
      'GET /v1/media/{media_id}',
      'DELETE /v1/media/{media_id}',
      'GET /v1/accounts',
      'POST /v1/accounts',
      'DELETE /v1/accounts/{account_id}',
      'POST /v1/accounts/{account_id}/refresh',
      'GET /v1/oauth/{provider}/start',
      'GET /v1/oauth/{provider}/callback',
      'GET /v1/oauth-apps',
      'POST /v1/oauth-apps',
      'GET /v1/webhooks',
      'POST /v1/webhooks',
      'POST /v1/webhooks/{webhook_id}/test',
      'GET /v1/webhooks/{webhook_id}/deliveries',
      'GET /v1/analytics/posts',
      'GET /v1/stats',
      'POST /v1/billing/checkout',
      'GET /health',
      'POST /v1/api-keys',
      'GET /v1/api-keys',
      'DELETE /v1/api-keys/{key_id}',
    ])
      expect(documented).toContain(expected);
    expect(documented).toHaveLength(Object.keys(operations).length);
    const publish = res.body.paths['/v1/publish'].post;
    expect(publish.requestBody.content['application/json'].schema.properties.text).toMatchObject({
      minLength: 1,
      maxLength: 5000,
      type: 'string',
    });
    expect(publish.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
  });

  it('reports readiness', async () => {
    expect((await request(h.app).get('/ready')).body).toEqual({ status: 'ready' });
  });
});
