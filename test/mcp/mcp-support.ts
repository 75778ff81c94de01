// Helpers of the MCP system tests: an MCP SDK client on the gateway's /mcp, and tool results read back.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { SystemHarness } from '../support/system-harness.ts';

/** The gateway's real address (it listens on a port as well as serving supertest). */
export const baseUrlOf = (h: SystemHarness) => h.env.MEDIA_PUBLIC_BASE_URL!;

export async function httpClient(h: SystemHarness, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrlOf(h)}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

export interface ToolOutcome {
  isError: boolean;
  /** The structured content: the API's JSON answer, or its error body. */
  body: Record<string, unknown>;
  text: string;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return {
    isError: result.isError === true,
    body: result.structuredContent as Record<string, unknown>,
    text: content[0]?.text ?? '',
  };
}
