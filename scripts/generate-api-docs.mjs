// Writes docs/api/openapi.json and docs/api/README.md from the gateway's operation declarations
// (the same ones that validate requests), so the API reference cannot drift from the code.
//   node scripts/generate-api-docs.mjs        (after pnpm build)
import { writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { operations } = require('../services/gateway/dist/openapi/operations.js');
const { buildOpenApiDocument } = require('../services/gateway/dist/openapi/build-openapi.js');
const { renderApiReference } = require('../services/gateway/dist/openapi/render-reference.js');

const document = buildOpenApiDocument(Object.values(operations), 'https://api.example.com');
mkdirSync(path.join(root, 'docs/api'), { recursive: true });
writeFileSync(path.join(root, 'docs/api/openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(path.join(root, 'docs/api/README.md'), renderApiReference(document));
console.log('wrote docs/api/openapi.json and docs/api/README.md');
