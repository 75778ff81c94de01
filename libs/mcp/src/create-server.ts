import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { listAccountResources, readAccountResource, resourceTemplates } from './account-resources.ts';
import { type McpTool, splitArguments } from './build-tools.ts';
import type { Caller } from './caller.ts';
import { errorResult, localError, toolResult } from './tool-result.ts';

/** How one tool call ended, for the host's log: `api_error` is an answer of the API outside 2xx. */
export interface ToolCallOutcome {
  tool: string;
  operationId: string;
  outcome: 'ok' | 'api_error' | 'invalid_input' | 'unreachable';
  status?: number;
  errorCode?: string;
}

export interface McpServerOptions {
  tools: readonly McpTool[];
  caller: Caller;
  /** The request id of errors made here (the API's own errors carry theirs). */
  requestId: () => string;
  onToolCall?: (outcome: ToolCallOutcome) => void;
  version?: string;
}

const INSTRUCTIONS =
  'Publish and schedule posts to connected Instagram, Facebook, X, LinkedIn and TikTok accounts. ' +
  'Start with list_accounts; read get_account_capabilities (or the account capabilities resources) ' +
  'and call validate_post before create_post; follow a post with get_post. A failed call returns ' +
  "the API's error body: {error: {code, message, details, request_id}}.";

/** fetch's own message is "fetch failed"; the reason (ECONNREFUSED...) is its cause. */
function describeFailure(error: unknown): string {
  const { message, cause } = error as Error & { cause?: { message?: string } };
  return cause?.message === undefined ? message : `${message} (${cause.message})`;
}

async function callTool(
  options: McpServerOptions,
  tool: McpTool,
  args: Record<string, unknown>,
): Promise<{ result: CallToolResult; outcome: ToolCallOutcome }> {
  const base = { tool: tool.name, operationId: tool.operation.operationId };
  const missing = tool.operation.pathParams.filter((name) => typeof args[name] !== 'string' || args[name] === '');
  if (missing.length > 0) {
    const body = localError(
      'validation_error',
      `${tool.name} needs ${missing.join(' and ')}.`,
      options.requestId(),
      missing.map((name) => ({ path: `/${name}`, message: 'is required' })),
    );
    return { result: errorResult(body), outcome: { ...base, outcome: 'invalid_input', errorCode: 'validation_error' } };
  }
  const { path, query, body } = splitArguments(tool.operation, args);
  let response;
  try {
    response = await options.caller(tool.operation.operationId, {
      path,
      query,
      ...(body === undefined ? {} : { body }),
    });
  } catch (error) {
    const failure = localError(
      'service_unavailable',
      `The API could not be reached: ${describeFailure(error)}`,
      options.requestId(),
    );
    return {
      result: errorResult(failure),
      outcome: { ...base, outcome: 'unreachable', errorCode: 'service_unavailable' },
    };
  }
  const result = toolResult(response, options.requestId());
  const errorCode =
    result.isError === true ? (result.structuredContent as { error?: { code?: string } }).error?.code : undefined;
  return {
    result,
    outcome: {
      ...base,
      outcome: result.isError === true ? 'api_error' : 'ok',
      status: response.status,
      ...(errorCode === undefined ? {} : { errorCode }),
    },
  };
}

/**
 * The MCP server over the low-level SDK `Server`: tools/list answers the JSON Schemas derived from the
 * OpenAPI document (no zod declarations to keep in step), tools/call runs one API operation through
 * the caller, and each connected account's capabilities are a resource.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: 'svc', title: 'Unified Social Publishing API', version: options.version ?? '1.0.0' },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.tools.map((tool) => ({
      name: tool.name,
      title: tool.annotations.title,
      description: tool.description,
      inputSchema: tool.operation.inputSchema,
      annotations: tool.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no tool ${request.params.name}; the tools are ${[...byName.keys()].join(', ')}.`,
      );
    const { result, outcome } = await callTool(options, tool, request.params.arguments ?? {});
    options.onToolCall?.(outcome);
    return result;
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => resourceTemplates());
  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    listAccountResources(options.caller, request.params?.cursor),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    readAccountResource(options.caller, request.params.uri),
  );
  return server;
}
