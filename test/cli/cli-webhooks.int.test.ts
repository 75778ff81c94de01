import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uniqueName, waitFor } from '@svc/testing';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { cliHome, svc, svcJson, type CliHome } from './cli-process.ts';

// Webhook endpoints through the CLI, with a dashboard token from SVC_TOKEN, delivering to a real
// receiver on this machine.
let system: SystemHarness;
let home: CliHome;
let env: Record<string, string>;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  system = await startSystem({ services: ['webhook-dispatcher'] });
  home = await cliHome(system.env.MEDIA_PUBLIC_BASE_URL!);
  env = { ...home.env, SVC_TOKEN: await system.token(uniqueName('org')) };
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-svc-delivery']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}, 60_000);
afterAll(async () => {
  await system?.close();
  await home?.remove();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('svc webhooks', () => {
  it('creates, lists, tests, lists deliveries and replays one', async () => {
    const created = await svcJson<{ id: string; signing_secret: string; events: string[] }>(
      ['webhooks', 'create', receiverUrl, '--events', 'post.published,post.failed'],
      env,
    );
    expect(created.signing_secret).toMatch(/^whsec_/);
    expect(created.events).toEqual(['post.published', 'post.failed']);
    const human = await svc(['webhooks', 'list'], env);
    expect(human.stdout).toMatch(
      new RegExp(`^ID\\s+STATUS\\s+FORMAT\\s+EVENTS\\s+URL\\n${created.id}\\s+active\\s+envelope\\s`),
    );

    const tested = await svc(['webhooks', 'test', created.id], env);
    expect(tested).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^The receiver answered HTTP 200 \(delivery \S+\)\.\n$/),
    });
    const deliveries = await svcJson<{ items: { id: string; status: string }[] }>(
      ['webhooks', 'deliveries', created.id],
      env,
    );
    expect(deliveries.items).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    const deliveryId = deliveries.items[0]!.id;

    const replayed = await svc(['webhooks', 'replay', created.id, deliveryId], env);
    expect(replayed.code).toBe(0);
    await waitFor(() => received.filter((id) => id === received[0]).length >= 2, { what: 'the replayed delivery' });
  });

  it('refuses an unknown event (API error, exit 1), and needs a dashboard token (exit 2)', async () => {
    const refused = await svc(['webhooks', 'create', receiverUrl, '--events', 'post.exploded'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\(validation_error, HTTP 400/);
    const { SVC_TOKEN: _token, ...withoutToken } = env;
    const noToken = await svc(['webhooks', 'list'], {
      ...withoutToken,
      SVC_API_KEY: await system.apiKey(uniqueName('org')),
    });
    expect(noToken).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: this command needs a dashboard token/),
    });
  });
});
