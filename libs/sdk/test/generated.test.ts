// The SDK's contract cannot drift from the API: the committed document and types must be exactly what
// the current operation declarations produce (what the gateway serves at /v1/openapi.json).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../../../services/gateway/src/openapi/build-openapi.ts';
import { operations } from '../../../services/gateway/src/openapi/operations.ts';

const root = path.resolve(__dirname, '../../..');
const generated = path.join(root, 'libs/sdk/src/generated');
const renderer = path.join(root, 'libs/sdk/scripts/api-types.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SERVER_URL } = require(renderer) as { SERVER_URL: string };
const REGENERATE = 'run `pnpm build && node scripts/generate-sdk.mjs` and commit libs/sdk/src/generated';

describe('libs/sdk/src/generated', () => {
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument(Object.values(operations), SERVER_URL))) as object;

  it(`openapi.json is the gateway's current document (${REGENERATE})`, () => {
    const committed = JSON.parse(readFileSync(path.join(generated, 'openapi.json'), 'utf8')) as object;
    if (JSON.stringify(committed) !== JSON.stringify(document))
      throw new Error(`libs/sdk/src/generated/openapi.json differs from the gateway's document: ${REGENERATE}.`);
  });

  it(`api.ts is openapi-typescript's rendering of that document (${REGENERATE})`, () => {
    // openapi-typescript runs in plain Node (its dependencies are ES modules jest cannot load).
    const types = execFileSync(process.execPath, [renderer], { input: JSON.stringify(document), encoding: 'utf8' });
    if (readFileSync(path.join(generated, 'api.ts'), 'utf8') !== types)
      throw new Error(`libs/sdk/src/generated/api.ts differs from the types of the gateway's document: ${REGENERATE}.`);
  }, 60_000);

  it("the default User-Agent's version is package.json's", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { version } = require('../package.json') as { version: string };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('../src/version.ts') as { SDK_VERSION: string }).SDK_VERSION).toBe(version);
  });
});
