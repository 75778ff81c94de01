import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallResponse } from './caller.ts';

/** The API's error body (docs/api-conventions.md, "Errors"). */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown[]; request_id: string };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function isErrorBody(value: unknown): value is ErrorBody {
  return isObject(value) && isObject(value.error) && typeof value.error.code === 'string';
}

/** An error body made by the MCP server itself, for a failure that never reached the API. */
export function localError(code: string, message: string, requestId: string, details?: unknown[]): ErrorBody {
  return { error: { code, message, ...(details === undefined ? {} : { details }), request_id: requestId } };
}

function result(body: unknown, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: body === undefined ? '' : JSON.stringify(body) }],
    ...(isObject(body) ? { structuredContent: body } : {}),
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * A tool's result from the API's answer: the JSON response as text (and as structured content when it
 * is an object). An API error is a tool result with `isError`, carrying the API's error body
 * unchanged, so the agent reads the same code, message and details a REST client would.
 */
export function toolResult(response: CallResponse, requestId: string): CallToolResult {
  if (response.status >= 200 && response.status < 300) return result(response.body, false);
  if (isErrorBody(response.body)) return result(response.body, true);
  return result(localError('internal_error', `The API answered ${response.status}.`, requestId), true);
}

export function errorResult(body: ErrorBody): CallToolResult {
  return result(body, true);
}
