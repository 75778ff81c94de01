import { operationInput, type OpenApiDocument } from './openapi-input.ts';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/v1/things/{thing_id}': {
      post: {
        operationId: 'updateThing',
        parameters: [
          { name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'dry_run', in: 'query', required: false, schema: { type: 'boolean' }, description: 'Check only.' },
          { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } },
        ],
        requestBody: {
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ThingBody' } },
            'image/png': { schema: { type: 'string', format: 'binary' } },
          },
        },
      },
    },
    '/v1/things': { get: { operationId: 'listThings' } },
  },
  components: {
    schemas: {
      ThingBody: {
        type: 'object',
        required: ['name'],
        anyOf: [{ required: ['colour'] }, { required: ['color'] }],
        properties: {
          name: { $ref: '#/components/schemas/Name' },
          colour: { type: 'string' },
          color: { type: 'string' },
        },
      },
      Name: { type: 'string', minLength: 1 },
      Loop: { $ref: '#/components/schemas/Loop' },
    },
  },
};

describe('operationInput', () => {
  it('merges path, query and JSON body into one object schema with every $ref resolved', () => {
    const input = operationInput(document, 'updateThing');
    expect(input).toMatchObject({ method: 'post', path: '/v1/things/{thing_id}', hasBody: true });
    expect(input.pathParams).toEqual(['thing_id']);
    expect(input.queryParams).toEqual(['dry_run']);
    expect(input.inputSchema).toEqual({
      type: 'object',
      properties: {
        thing_id: { type: 'string' },
        dry_run: { type: 'boolean', description: 'Check only.' },
        name: { type: 'string', minLength: 1 },
        colour: { type: 'string' },
        color: { type: 'string' },
      },
      required: ['thing_id', 'name'],
      anyOf: [{ required: ['colour'] }, { required: ['color'] }],
      additionalProperties: false,
    });
  });

  it('gives an operation without inputs an empty object schema', () => {
    expect(operationInput(document, 'listThings')).toMatchObject({
      method: 'get',
      hasBody: false,
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    });
  });

  it('throws when the document lacks the operation', () => {
    expect(() => operationInput(document, 'deleteThing')).toThrow('The OpenAPI document has no operation deleteThing.');
  });

  it('throws on a field declared both as a parameter and in the body', () => {
    const clash = structuredClone(document);
    (
      clash.components as { schemas: { ThingBody: { properties: Record<string, unknown> } } }
    ).schemas.ThingBody.properties.dry_run = {
      type: 'boolean',
    };
    expect(() => operationInput(clash, 'updateThing')).toThrow('dry_run is declared twice');
  });

  it('refuses a $ref that refers to itself', () => {
    const loop = structuredClone(document);
    (
      loop.components as { schemas: { ThingBody: { properties: Record<string, unknown> } } }
    ).schemas.ThingBody.properties.name = {
      $ref: '#/components/schemas/Loop',
    };
    expect(() => operationInput(loop, 'updateThing')).toThrow('refers to itself');
  });
});
