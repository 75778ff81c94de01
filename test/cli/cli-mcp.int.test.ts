import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { uniqueName } from '@svc/testing';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { CLI_MAIN, cliHome, svc, type CliHome } from './cli-process.ts';

// `svc mcp`: the MCP server over stdio as an agent starts it, driven by the MCP SDK's own client.
let system: SystemHarness;
let home: CliHome;
let client: Client | undefined;
const stderr: string[] = [];

beforeAll(async () => {
  system = await startSystem({ services: ['accounts'] });
  home = await cliHome(system.env.MEDIA_PUBLIC_BASE_URL!);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await system?.close();
  await home?.remove();
});

describe('svc mcp', () => {
  it('serves the ten tools over stdio with the API key from SVC_API_KEY', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_MAIN, 'mcp'],
      env: { ...home.env, SVC_API_KEY: await system.apiKey(uniqueName('org')) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    client = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'cancel_post',
        'create_post',
        'get_account_capabilities',
        'get_analytics',
        'get_post',
        'import_media',
        'list_accounts',
        'list_media',
        'search_posts',
        'validate_post',
      ].sort(),
    );
    const listed = await client.callTool({ name: 'list_accounts', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ items: [], total: 0 });
    expect(stderr.join('')).toBe('');
  });

  it('needs an API key (exit 2), and names an unreachable API (exit 3)', async () => {
    expect(await svc(['mcp'], home.env)).toMatchObject({
      code: 2,
      stderr: 'error: svc mcp needs an API key: run svc login, or set SVC_API_KEY\n',
    });
    const unreachable = await svc(['mcp'], { ...home.env, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'svc_x' });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});
