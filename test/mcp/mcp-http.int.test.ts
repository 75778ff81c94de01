import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { uniqueName, waitFor } from '@svc/testing';
import { connectAccount } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { baseUrlOf, call, httpClient } from './mcp-support.ts';

const TOOLS = [
  'list_accounts',
  'get_account_capabilities',
  'validate_post',
  'create_post',
  'cancel_post',
  'get_post',
  'search_posts',
  'import_media',
  'list_media',
  'get_analytics',
];

let h: SystemHarness;
let client: Client;
let apiKey: string;
let accountId: string;
const logLines: string[] = [];

beforeAll(async () => {
  h = await startSystem({
    services: ['accounts', 'publisher', 'scheduler'],
    logLines,
  });
  const orgId = uniqueName('org');
  apiKey = await h.apiKey(orgId);
  accountId = await connectAccount(h, `Bearer ${await h.token(orgId)}`, 'x');
  client = await httpClient(h, apiKey);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await h?.close();
});

describe('the MCP server at POST /mcp', () => {
  it('lists the ten tools with schemas derived from the OpenAPI document', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const create = byName.get('create_post')!;
    // `text`, or `thread` on X: neither is required on its own.
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['account_ids']));
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['text', 'thread', 'first_comment', 'scheduled_at']),
    );
    expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('get_post')!.inputSchema.required).toEqual(['post_id']);
    expect(byName.get('cancel_post')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('search_posts')!.inputSchema.properties).toHaveProperty('q');
    expect(byName.get('import_media')!.inputSchema.required).toEqual(['url']);
    for (const name of ['list_accounts', 'get_post', 'search_posts', 'validate_post', 'get_analytics'])
      expect(byName.get(name)!.annotations?.readOnlyHint).toBe(true);
  });

  it('publishes to a sandbox account with create_post and follows it with get_post', async () => {
    const text = `from an agent ${uniqueName('mcp')}`;
    const created = await call(client, 'create_post', { account_ids: [accountId], text });
    expect(created.isError).toBe(false);
    expect(JSON.parse(created.text)).toEqual(created.body);
    expect(created.body).toMatchObject({ text, account_ids: [accountId] });
    const postId = created.body.id as string;

    const published = await waitFor(
      async () => {
        const post = await call(client, 'get_post', { post_id: postId });
        return post.body.status === 'published' ? post.body : undefined;
      },
      { what: 'the post to be published' },
    );
    expect(published.results).toEqual([
      expect.objectContaining({ account_id: accountId, status: 'published', platform_post_id: expect.any(String) }),
    ]);

    const found = await call(client, 'search_posts', { q: text });
    expect((found.body.items as { id: string }[]).map((post) => post.id)).toEqual([postId]);
    const accounts = await call(client, 'list_accounts', {});
    expect((accounts.body.items as { id: string }[]).map((account) => account.id)).toEqual([accountId]);
  });

  it("returns an API error as an isError result carrying the API's error body unchanged", async () => {
    const unknown = await call(client, 'create_post', { account_ids: ['acc_unknown'], text: 'hello' });
    expect(unknown.isError).toBe(true);
    expect(unknown.body).toEqual({
      error: expect.objectContaining({
        code: 'validation_error',
        message: expect.any(String),
        request_id: expect.any(String),
      }),
    });
    expect(JSON.parse(unknown.text)).toEqual(unknown.body);

    const missing = await call(client, 'get_post', { post_id: 'post_does_not_exist' });
    expect(missing).toMatchObject({ isError: true, body: { error: { code: 'not_found' } } });
    const badField = await call(client, 'search_posts', { colour: 'blue' });
    expect(badField).toMatchObject({ isError: true, body: { error: { code: 'validation_error' } } });
  });

  it('lists each connected account as a capabilities resource', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'svc://accounts/{account_id}/capabilities',
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([`svc://accounts/${accountId}/capabilities`]);
  });

  it('logs every tool call with its tool, API key, request id and outcome', async () => {
    await call(client, 'list_media', {});
    const logged = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'mcp tool call' && line.tool === 'list_media');
    expect(logged).toEqual([
      expect.objectContaining({
        outcome: 'ok',
        status: 200,
        api_key_id: expect.any(String),
        request_id: expect.any(String),
      }),
    ]);
  });

  it('refuses a call without an API key with 401 and our error body', async () => {
    const res = await fetch(`${baseUrlOf(h)}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: expect.objectContaining({ code: 'unauthorized', request_id: expect.any(String) }),
    });
  });

  it('refuses a dashboard token: an agent is an API key', async () => {
    const res = await fetch(`${baseUrlOf(h)}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await h.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('bounds the body (413) and takes JSON only (415), with our error body', async () => {
    const post = (contentType: string, body: string) =>
      fetch(`${baseUrlOf(h)}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': contentType,
          accept: 'application/json, text/event-stream',
        },
        body,
      });
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1_100_000) } });
    const tooLarge = await post('application/json', huge);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    const text = await post('text/plain', 'tools/list');
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
  });

  it.each(['GET', 'DELETE'])('answers %s /mcp with 405 and our error body', async (method) => {
    const res = await fetch(`${baseUrlOf(h)}/mcp`, { method, headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({
      error: expect.objectContaining({ code: 'method_not_allowed', request_id: expect.any(String) }),
    });
  });
});
