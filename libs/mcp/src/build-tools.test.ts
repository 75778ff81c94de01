import { buildTools, splitArguments } from './build-tools.ts';
import type { OpenApiDocument } from './openapi-input.ts';
import { TOOL_TABLE } from './tool-table.ts';

const body = (properties: Record<string, unknown>) => ({
  content: { 'application/json': { schema: { type: 'object', properties } } },
});

/** A document holding every operation of the tool table, with one field each. */
function fullDocument(): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [index, entry] of TOOL_TABLE.entries()) {
    paths[`/v1/op${index}/{id}`] = {
      post: {
        operationId: entry.operationId,
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        requestBody: body({ text: { type: 'string' }, draft: { type: 'boolean' } }),
      },
    };
  }
  return { openapi: '3.1.0', paths };
}

describe('buildTools', () => {
  it('builds one tool per table entry, with the derived schema', () => {
    const tools = buildTools(fullDocument());
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_TABLE.map((entry) => entry.name));
    expect(tools[0]!.operation.inputSchema.required).toEqual(['id']);
  });

  it('adds a field note only when the served schema has the field', () => {
    const create = buildTools(fullDocument()).find((tool) => tool.name === 'create_post')!;
    expect(create.description).toContain('`draft: true`');
    expect(create.description).not.toContain('`thread`');
  });

  it('throws naming every tool whose operation the document lacks', () => {
    const full = fullDocument();
    const pending = new Set(['validatePost', 'getAccountCapabilities']);
    const kept = Object.entries(full.paths!).filter(
      ([, item]) => !pending.has((item as { post: { operationId: string } }).post.operationId),
    );
    const document = { ...full, paths: Object.fromEntries(kept) };
    expect(() => buildTools(document)).toThrow(
      /get_account_capabilities: The OpenAPI document has no operation getAccountCapabilities\.\nvalidate_post: .*validatePost/,
    );
  });
});

describe('splitArguments', () => {
  const [tool] = buildTools(fullDocument());
  it('sorts arguments into path, query and body', () => {
    expect(splitArguments(tool!.operation, { id: 'a1', limit: 5, text: 'hi' })).toEqual({
      path: { id: 'a1' },
      query: { limit: 5 },
      body: { text: 'hi' },
    });
  });

  it('sends an unknown argument of a bodiless operation as a query parameter, for the API to name it', () => {
    const operation = { ...tool!.operation, hasBody: false };
    expect(splitArguments(operation, { id: 'a1', colour: 'blue' })).toEqual({
      path: { id: 'a1' },
      query: { colour: 'blue' },
      body: undefined,
    });
  });
});
