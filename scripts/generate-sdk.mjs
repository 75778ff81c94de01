// Writes the SDK's contract from the gateway's operation declarations (the same ones that validate
// requests and that the gateway serves as GET /v1/openapi.json), so the SDK cannot drift from the API:
//   libs/sdk/src/generated/openapi.json  the document, exported by the SDK (the MCP server derives tools from it)
//   libs/sdk/src/generated/api.ts        its types, from openapi-typescript
//   node scripts/generate-sdk.mjs        (after pnpm build; test libs/sdk/test/generated.test.ts checks both)
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { operations } = require('../services/gateway/dist/openapi/operations.js');
const { buildOpenApiDocument } = require('../services/gateway/dist/openapi/build-openapi.js');
const { renderApiTypes, SERVER_URL } = require('../libs/sdk/scripts/api-types.cjs');

const document = JSON.parse(JSON.stringify(buildOpenApiDocument(Object.values(operations), SERVER_URL)));
const out = path.join(root, 'libs/sdk/src/generated');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(path.join(out, 'api.ts'), await renderApiTypes(document));
console.log('wrote libs/sdk/src/generated/openapi.json and api.ts');
