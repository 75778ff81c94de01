import { randomBytes } from 'node:crypto';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import {
  serviceQueues,
  TEST_AMQP_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
  uniqueNamespace,
} from '@svc/testing';
import { dashboard, gateway, type ServiceFacts } from './deploy-facts.ts';
import { containerEnv, resolved } from './k8s-manifests.ts';
import {
  freePort,
  signalServiceProcess,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process.ts';

// The dashboard and the gateway as the deployment runs them: their built entry points, the
// dashboard's pages in web/dist beside its dist/ as the image holds them, and the values k8s/ gives
// them for dashboard JWTs (the gateway's JWT_*, the dashboard's public address and issuer). Only the
// addresses (of each other and of the infrastructure) and the secrets are this machine's.
const namespace = uniqueNamespace('dwire');
const runId = uniqueName('dwire');
const database = (service: string) => `${runId}_${service}`;

/** A variable's value in the manifests (a ConfigMap or the Deployment itself). */
function manifestValue(facts: ServiceFacts, variable: string): string {
  const value = resolved(facts, variable);
  if (value === undefined) throw new Error(`k8s/ gives ${facts.name} no ${variable}`);
  return value;
}

const infrastructure = {
  AMQP_URL: TEST_AMQP_URL,
  AMQP_NAMESPACE: namespace,
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  SHUTDOWN_GRACE_MS: '5000',
};
const publicUrl = manifestValue(dashboard, 'DASHBOARD_PUBLIC_URL');
let dashboardProcess: ServiceProcess | undefined;
let gatewayProcess: ServiceProcess | undefined;
let dashboardUrl: string;

beforeAll(async () => {
  const gatewayPort = await freePort();
  dashboardProcess = await startServiceProcess('dashboard', {
    ...infrastructure,
    DATABASE_NAME: database('dashboard'),
    DASHBOARD_PORT: '0',
    VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    DASHBOARD_PUBLIC_URL: publicUrl,
    DASHBOARD_ISSUER: manifestValue(dashboard, 'DASHBOARD_ISSUER'),
    GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
  });
  dashboardUrl = `http://127.0.0.1:${dashboardProcess.port}`;
  // The manifests' JWKS address, on this machine's dashboard.
  const jwks = new URL(manifestValue(gateway, 'JWT_JWKS_URL'));
  gatewayProcess = await startServiceProcess('gateway', {
    ...infrastructure,
    DATABASE_NAME: database('gateway'),
    PORT: String(gatewayPort),
    API_KEY_PEPPER: randomBytes(32).toString('base64url'),
    JWT_SECRET: randomBytes(32).toString('base64url'),
    JWT_ALGORITHM: manifestValue(gateway, 'JWT_ALGORITHM'),
    JWT_JWKS_URL: `${dashboardUrl}${jwks.pathname}`,
    JWT_ISSUER: manifestValue(gateway, 'JWT_ISSUER'),
    JWT_AUDIENCE: manifestValue(gateway, 'JWT_AUDIENCE'),
  });
}, 180_000);

afterAll(async () => {
  const running = [gatewayProcess, dashboardProcess].filter((service) => service !== undefined);
  await Promise.all(running.map((service) => signalServiceProcess(service, 'SIGTERM')));
  // The processes are gone; what their brokers declared in the namespace is not.
  const broker = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace,
    service: 'dashboard-wiring-test',
    logger: createLogger({ service: 'dashboard-wiring-test', level: 'silent' }),
  });
  await broker.deleteTopology({ queues: serviceQueues(['gateway', 'dashboard']) });
  await broker.close();
  await Promise.all(
    ['gateway', 'dashboard'].map((service) => dropDatabase(connectionConfig(TEST_DATABASE_URL, database(service)))),
  );
}, 120_000);

describe('the dashboard and the gateway, wired as k8s/ wires them', () => {
  it('serves the pages built beside its entry point (DASHBOARD_WEB_DIR unset, as in the image)', async () => {
    expect(containerEnv(dashboard).has('DASHBOARD_WEB_DIR')).toBe(false);
    const page = await fetch(`${dashboardUrl}/calendar`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${dashboardUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it("takes a signed-up user's requests to the gateway, which verifies the dashboard's tokens with its keys", async () => {
    const signUp = await fetch(`${dashboardUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: publicUrl },
      body: JSON.stringify({ email: `${uniqueName('wiring')}@example.com`, password: 'correct horse battery staple' }),
    });
    expect(signUp.status).toBe(201);
    const cookie = signUp.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^__Host-svc_session=/);
    const { csrf_token: csrf } = (await signUp.json()) as { csrf_token: string };
    const created = await fetch(`${dashboardUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: publicUrl, cookie, 'x-csrf-token': csrf },
      body: JSON.stringify({ name: 'wired' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const listed = await fetch(`${dashboardUrl}/api/v1/api-keys`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { id: string }[]).map((key) => key.id)).toEqual([id]);
  });
});
