import { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { createLogger } from '@svc/logger';
import request from 'supertest';
import { defineRoute } from '../src/http/route.ts';
import { defineOperation, type Operation } from '../src/openapi/operation.ts';
import { startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

// Operations of every kind a scope tells apart, mounted only here: what the route mounting decides
// from the declaration holds for every real endpoint of the same kind.
const testOperation = (method: Operation['method'], path: string, extra: Partial<Operation> = {}) =>
  defineOperation({
    operationId: `scope_${method}_${path}`,
    method,
    path,
    summary: 'Test only.',
    tag: 'Test',
    auth: 'api_key_or_jwt',
    responses: { 200: Type.Object({ ok: Type.Boolean() }) },
    errors: [],
    ...extra,
  });
const ok = () => Promise.resolve({ status: 200, body: { ok: true } });

const lines: Record<string, unknown>[] = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
    done();
  },
});

let h: GatewayHarness;
let token: string;
beforeAll(async () => {
  h = await startGatewayHarness({
    logger: createLogger({ service: 'gateway-test', level: 'info', destination }),
    extraRoutes: () => [
      defineRoute(testOperation('get', '/v1/test/thing'), ok),
      defineRoute(testOperation('post', '/v1/test/thing'), ok),
      defineRoute(testOperation('patch', '/v1/test/thing'), ok),
      defineRoute(testOperation('delete', '/v1/test/thing'), ok),
      defineRoute(testOperation('post', '/v1/test/thing/check', { readOnly: true }), ok),
    ],
  });
  token = await h.token('org_scopes');
});
afterAll(async () => {
  await h.close();
});

async function createKey(scope?: string): Promise<request.Response> {
  return request(h.app)
    .post('/v1/api-keys')
    .set('Authorization', `Bearer ${token}`)
    .send(scope === undefined ? { name: 'k' } : { name: 'k', scope });
}

describe('API key scopes', () => {
  it('stores the scope, full by default, and shows it in the created and listed keys', async () => {
    const full = await createKey();
    const limited = await createKey('read_validate');
    expect(full.status).toBe(201);
    expect(full.body.scope).toBe('full');
    expect(limited.body.scope).toBe('read_validate');
    const listed = await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`);
    const scopes = Object.fromEntries((listed.body as { id: string; scope: string }[]).map((k) => [k.id, k.scope]));
    expect(scopes[full.body.id as string]).toBe('full');
    expect(scopes[limited.body.id as string]).toBe('read_validate');
  });

  it('refuses an unknown scope', async () => {
    const res = await createKey('admin');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('lets a read_validate key GET and call read-only operations, and nothing else (403 naming the scope)', async () => {
    const { body } = await createKey('read_validate');
    const as = (call: request.Test) => call.set('Authorization', `Bearer ${body.key}`);
    expect((await as(request(h.app).get('/v1/test/thing'))).status).toBe(200);
    expect((await as(request(h.app).post('/v1/test/thing/check'))).status).toBe(200);
    for (const call of [
      request(h.app).post('/v1/test/thing'),
      request(h.app).patch('/v1/test/thing'),
      request(h.app).delete('/v1/test/thing'),
    ]) {
      const res = await as(call);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toMatch(/scope is read_validate: it can read and validate, not/);
    }
  });

  it('leaves full keys and dashboard tokens able to call everything', async () => {
    const { body } = await createKey();
    for (const credential of [body.key as string, token]) {
      for (const call of [
        request(h.app).get('/v1/test/thing'),
        request(h.app).post('/v1/test/thing'),
        request(h.app).delete('/v1/test/thing'),
        request(h.app).post('/v1/test/thing/check'),
      ]) {
        expect((await call.set('Authorization', `Bearer ${credential}`)).status).toBe(200);
      }
    }
  });

  it('logs one line per request naming the API key that made it', async () => {
    const { body } = await createKey('read_validate');
    const res = await request(h.app).delete('/v1/test/thing').set('Authorization', `Bearer ${body.key}`);
    const requestId = res.headers['x-request-id'];
    const line = lines.find((entry) => entry.msg === 'request' && entry.request_id === requestId);
    expect(line).toMatchObject({
      org_id: 'org_scopes',
      api_key_id: body.id,
      method: 'DELETE',
      route: '/v1/test/thing',
      status: 403,
    });
    expect(JSON.stringify(line)).not.toContain(body.key);
  });
});
