import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/openapi/build-openapi.ts';
import { operations } from '../src/openapi/operations.ts';
import { renderApiReference } from '../src/openapi/render-reference.ts';

const docs = path.resolve(__dirname, '../../../docs/api');

describe('docs/api', () => {
  it('is generated from the current operation declarations (run `node scripts/generate-api-docs.mjs` after a build)', () => {
    const document = buildOpenApiDocument(Object.values(operations), 'https://api.example.com');
    expect(JSON.parse(readFileSync(path.join(docs, 'openapi.json'), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(document)),
    );
    expect(readFileSync(path.join(docs, 'README.md'), 'utf8')).toBe(renderApiReference(document));
  });
});
