// MCP tools over the API's guard-rails: an API key's scope, dry-run validation and account capabilities.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { connectAccount } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { call, httpClient } from './mcp-support.ts';

let h: SystemHarness;
let orgId: string;
let accountId: string;
let client: Client;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startSystem({ services: ['accounts', 'publisher'] });
  orgId = uniqueName('org');
  accountId = await connectAccount(h, `Bearer ${await h.token(orgId)}`, 'x');
  client = await httpClient(h, await h.apiKey(orgId));
  clients.push(client);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()));
  await h?.close();
});

describe('MCP tools over the scopes, validation and capabilities of the API', () => {
  it("a read_validate key's create_post is refused 403 forbidden, its list_accounts answered", async () => {
    const created = await request(h.gateway)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${await h.token(orgId)}`)
      .send({ name: 'agent', scope: 'read_validate' });
    expect(created.status).toBe(201);
    const readOnly = await httpClient(h, (created.body as { key: string }).key);
    clients.push(readOnly);

    const refused = await call(readOnly, 'create_post', { account_ids: [accountId], text: 'not allowed' });
    expect(refused).toMatchObject({ isError: true, body: { error: { code: 'forbidden' } } });
    const accounts = await call(readOnly, 'list_accounts', {});
    expect(accounts.isError).toBe(false);
    expect((accounts.body.items as { id: string }[]).map((account) => account.id)).toEqual([accountId]);
  });

  it('validate_post lists every problem without creating a post', async () => {
    const checked = await call(client, 'validate_post', { account_ids: [accountId], text: 'x'.repeat(300) });
    expect(checked.isError).toBe(false);
    expect(checked.body).toMatchObject({
      valid: false,
      problems: [expect.objectContaining({ account_id: accountId, rule: expect.any(String) })],
    });
    const posts = await call(client, 'search_posts', {});
    expect(posts.body.items).toEqual([]);
  });

  it("reads an account's capabilities as a tool and as a resource", async () => {
    const tool = await call(client, 'get_account_capabilities', { account_id: accountId });
    expect(tool.body).toMatchObject({ account_id: accountId, provider: 'x' });
    const resource = await client.readResource({ uri: `svc://accounts/${accountId}/capabilities` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(tool.body);
  });
});
