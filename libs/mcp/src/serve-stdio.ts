import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildTools } from './build-tools.ts';
import { httpCaller } from './caller.ts';
import { createMcpServer, type ToolCallOutcome } from './create-server.ts';
import type { OpenApiDocument } from './openapi-input.ts';

export interface StdioOptions {
  /** The API's base URL (`SVC_BASE_URL` of the CLI). */
  baseUrl: string;
  /** An API key, `svc_...` (`SVC_API_KEY` of the CLI). */
  apiKey: string;
  /** The document to derive the tools from; default: the API's own, `GET /v1/openapi.json`. */
  document?: OpenApiDocument;
  fetch?: typeof fetch;
  /** Default: the process's stdin and stdout. */
  stdin?: Readable;
  stdout?: Writable;
  onToolCall?: (outcome: ToolCallOutcome) => void;
}

export interface StdioServer {
  /** Resolves when the client closes the connection (stdin ends) or close() is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** The served OpenAPI document of the API at `baseUrl`. */
export async function fetchOpenApiDocument(baseUrl: string, doFetch: typeof fetch = fetch): Promise<OpenApiDocument> {
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/openapi.json`;
  const response = await doFetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}.`);
  return (await response.json()) as OpenApiDocument;
}

/**
 * The MCP server over stdio, for desktop agents that start it as a command (the CLI's `svc mcp`).
 * Every tool call is an HTTP call of the API at `baseUrl` with the API key, as for the gateway's
 * `/mcp`. Stdout carries only JSON-RPC: nothing else may write to it.
 */
export async function serveStdio(options: StdioOptions): Promise<StdioServer> {
  const doFetch = options.fetch ?? fetch;
  const document = options.document ?? (await fetchOpenApiDocument(options.baseUrl, doFetch));
  const tools = buildTools(document);
  const server = createMcpServer({
    tools,
    caller: httpCaller({
      baseUrl: options.baseUrl,
      authorization: `Bearer ${options.apiKey}`,
      document,
      fetch: doFetch,
    }),
    requestId: randomUUID,
    ...(options.onToolCall === undefined ? {} : { onToolCall: options.onToolCall }),
  });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // The SDK's stdio transport does not notice the end of stdin: the client closing it ends the server.
  (options.stdin ?? process.stdin).once('end', () => void server.close());
  await server.connect(transport);
  return { closed, close: () => server.close() };
}
