export { CAPABILITIES_TEMPLATE, capabilitiesUri } from './account-resources.ts';
export { buildTools, splitArguments, type McpTool } from './build-tools.ts';
export { httpCaller, type Caller, type CallRequest, type CallResponse, type HttpCallerOptions } from './caller.ts';
export { createMcpServer, type McpServerOptions, type ToolCallOutcome } from './create-server.ts';
export { operationInput, type OpenApiDocument, type OperationInput } from './openapi-input.ts';
export { fetchOpenApiDocument, serveStdio, type StdioOptions, type StdioServer } from './serve-stdio.ts';
export { TOOL_TABLE, type ToolAnnotations, type ToolEntry } from './tool-table.ts';
export { isErrorBody, type ErrorBody } from './tool-result.ts';
export { serveHttpRequest } from './serve-http.ts';
