import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { defineMessage } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL } from '@svc/testing';
import { defineRoute } from '../src/http/route.ts';
import { defineOperation } from '../src/openapi/operation.ts';
import { startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

// A service RPC that answers slower than the gateway waits, and one no service serves at all.
const slowEcho = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'testslow.echo.v1',
  service: 'testslow',
  payload: Type.Object({ delay_ms: Type.Integer() }),
  reply: Type.Object({ ok: Type.Boolean() }),
});
const ghostCall = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'ghost.call.v1',
  service: 'ghost',
  payload: Type.Object({}),
  reply: Type.Object({}),
});

const echoOperation = defineOperation({
  operationId: 'testEcho',
  method: 'get',
  path: '/v1/test/echo',
  summary: 'Test only.',
  tag: 'Test',
  auth: 'api_key_or_jwt',
  query: Type.Object({ delay_ms: Type.Integer(), target: Type.Optional(Type.String()) }),
  responses: { 200: Type.Object({ ok: Type.Boolean() }) },
  errors: [],
});

let h: GatewayHarness;
let slowService: Broker;
let slowAnswers = 0;
beforeAll(async () => {
  h = await startGatewayHarness({
    extraRoutes: (broker) => [
      defineRoute(echoOperation, async ({ query, principal, requestId }) => {
        const ctx = { orgId: principal.orgId, requestId };
        if (query.target === 'ghost') return { status: 200, body: await broker.rpc(ghostCall, {}, ctx) };
        return { status: 200, body: await broker.rpc(slowEcho, { delay_ms: query.delay_ms }, ctx) };
      }),
    ],
  });
  slowService = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace: h.namespace,
    service: 'testslow',
    logger: createLogger({ service: 'testslow', level: 'silent' }),
  });
  await slowService.serveRpc({
    messages: [slowEcho],
    // A service that answers late on purpose (delay_ms): the gateway must not wait for it.
    handlers: {
      'testslow.echo.v1': async (env) => {
        await new Promise((r) => setTimeout(r, env.payload.delay_ms));
        slowAnswers += 1;
        return { ok: true };
      },
    },
  });
});
afterAll(async () => {
  await slowService.deleteTopology();
  await slowService.close();
  await h.close();
});

describe('RPC from the gateway', () => {
  it('answers when the service answers in time', async () => {
    const res = await request(h.app)
      .get('/v1/test/echo?delay_ms=0')
      .set('Authorization', `Bearer ${await h.token()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it('answers 503 service_unavailable instead of hanging when the service is too slow', async () => {
    const answeredBefore = slowAnswers;
    const res = await request(h.app)
      .get('/v1/test/echo?delay_ms=3000')
      .set('Authorization', `Bearer ${await h.token()}`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.message).toMatch(/testslow did not answer within/);
    // Answered by the gateway's timeout while the service still worked on the request.
    expect(slowAnswers).toBe(answeredBefore);
  });

  it('answers 503 at once when no service serves the request', async () => {
    const res = await request(h.app)
      .get('/v1/test/echo?delay_ms=0&target=ghost')
      .set('Authorization', `Bearer ${await h.token()}`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
  });
});
