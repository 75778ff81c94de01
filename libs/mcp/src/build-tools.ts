import { type OpenApiDocument, type OperationInput, operationInput } from './openapi-input.ts';
import { TOOL_TABLE, type ToolAnnotations, type ToolEntry } from './tool-table.ts';

/** A tool ready to serve: its table entry joined with what the document says of its operation. */
export interface McpTool {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  operation: OperationInput;
}

function describe(entry: ToolEntry, operation: OperationInput): string {
  const notes = Object.entries(entry.fieldNotes ?? {})
    .filter(([field]) => Object.hasOwn(operation.inputSchema.properties, field))
    .map(([, note]) => note);
  return [entry.description, ...notes].join(' ');
}

/**
 * The tools, derived from an OpenAPI document. Throws when the document lacks one of their
 * operations: a server missing a tool would fail agents later and more confusingly.
 */
export function buildTools(document: OpenApiDocument, table: readonly ToolEntry[] = TOOL_TABLE): McpTool[] {
  const missing: string[] = [];
  const tools: McpTool[] = [];
  for (const entry of table) {
    let operation: OperationInput;
    try {
      operation = operationInput(document, entry.operationId);
    } catch (error) {
      missing.push(`${entry.name}: ${(error as Error).message}`);
      continue;
    }
    tools.push({
      name: entry.name,
      description: describe(entry, operation),
      annotations: entry.annotations,
      operation,
    });
  }
  if (missing.length > 0) throw new Error(`The MCP tools cannot be built:\n${missing.join('\n')}`);
  return tools;
}

/** Sorts a tool call's arguments into path, query and body, as its operation takes them. */
export function splitArguments(
  operation: OperationInput,
  args: Record<string, unknown>,
): { path: Record<string, string>; query: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const path: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (operation.pathParams.includes(name)) path[name] = String(value);
    else if (operation.queryParams.includes(name)) query[name] = value;
    // Anything else is the body's, or (no body) the query's: the API then names it as unknown.
    else if (operation.hasBody) body[name] = value;
    else query[name] = value;
  }
  return { path, query, body: operation.hasBody ? body : undefined };
}
