import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { uniqueName, waitFor } from '@svc/testing';
import { connectAccount } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { baseUrlOf, call } from './mcp-support.ts';

const root = path.resolve(__dirname, '../..');
const script = path.join(__dirname, 'fixtures/stdio-server.cjs');

let h: SystemHarness;
let client: Client;
let accountId: string;
const stderr: string[] = [];

beforeAll(async () => {
  if (!existsSync(path.join(root, 'libs/mcp/dist/index.js')))
    throw new Error('libs/mcp/dist is missing: build first (pnpm build; scripts/test does it).');
  h = await startSystem({ services: ['accounts', 'publisher', 'scheduler'] });
  const orgId = uniqueName('org');
  const apiKey = await h.apiKey(orgId);
  accountId = await connectAccount(h, `Bearer ${await h.token(orgId)}`, 'linkedin');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script],
    env: { SVC_BASE_URL: baseUrlOf(h), SVC_API_KEY: apiKey },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await h?.close();
});

describe('the MCP server over stdio', () => {
  it('serves the ten tools and publishes through the API with the key from the environment', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(10);

    const text = `over stdio ${uniqueName('mcp')}`;
    const created = await call(client, 'create_post', { account_ids: [accountId], text });
    expect(created).toMatchObject({ isError: false, body: { text, account_ids: [accountId] } });
    const post = await waitFor(
      async () => {
        const read = await call(client, 'get_post', { post_id: created.body.id });
        return read.body.status === 'published' ? read.body : undefined;
      },
      { what: 'the post to be published' },
    );
    expect(post.results).toEqual([expect.objectContaining({ account_id: accountId, status: 'published' })]);
  });

  it("returns an API error as an isError result with the API's error body", async () => {
    const canceled = await call(client, 'cancel_post', { post_id: 'post_does_not_exist' });
    expect(canceled).toMatchObject({ isError: true, body: { error: { code: 'not_found' } } });
    expect(stderr.join('')).toBe('');
  });
});
