// The published shape: `pnpm pack` gives a tarball that `npm install` puts into an empty project
// outside the workspace, where a script (ES module and CommonJS) calls the running system and verifies
// a webhook, and where the browser entry's built module graph still imports nothing of Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSystem, type SystemHarness } from '../../../test/support/system-harness.ts';
import { moduleGraph, nodeOnly } from './support/module-graph.ts';

const sdkDir = path.resolve(__dirname, '..');
const root = path.resolve(sdkDir, '../..');
let system: SystemHarness;
let project: string;

/** Runs a command without blocking this process, which also runs the gateway the command may call. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' }, (error, stdout, stderr) =>
      error === null
        ? resolve(stdout)
        : reject(new Error(`${command} ${args.join(' ')} failed: ${stderr}`, { cause: error })),
    );
  });
}

const SCRIPT = `
import { createHmac } from 'node:crypto';
import { createClient, verifyWebhook, SvcApiError, openApiDocument } from '@svc/sdk';
import { uploadFile } from '@svc/sdk/node';

const client = createClient({ baseUrl: process.env.SVC_BASE_URL, apiKey: process.env.SVC_API_KEY });
const accounts = await client.accounts.list().page();
const missing = await client.accounts.refresh('nope').catch((error) => error);
const body = JSON.stringify({ id: 'd1', type: 'post.published', created_at: new Date().toISOString(), data: {} });
const timestamp = Math.floor(Date.now() / 1000);
const signature = createHmac('sha256', 'whsec_packed').update(timestamp + '.' + body).digest('hex');
const event = await verifyWebhook(body, { 'x-svc-signature': 'sha256=' + signature, 'x-svc-timestamp': String(timestamp) }, 'whsec_packed');
console.log(JSON.stringify({
  total: accounts.total,
  missing: missing instanceof SvcApiError ? missing.status : 'not an SvcApiError',
  event: event.type,
  openapi: openApiDocument.openapi,
  uploadFile: typeof uploadFile,
}));
`;

beforeAll(async () => {
  system = await startSystem({ services: ['accounts'] });
  project = mkdtempSync(path.join(os.tmpdir(), 'svc-sdk-pack-'));
  // The package's own build (tsc -b builds nothing else: the SDK depends on no workspace package).
  await run(path.join(root, 'node_modules/.bin/tsc'), ['-b', sdkDir], root);
  await run('pnpm', ['pack', '--pack-destination', project], sdkDir);
}, 180_000);

afterAll(async () => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
  await system?.close();
}, 120_000);

describe('the packed @svc/sdk', () => {
  it('installs with npm in an empty project and works there (ESM and CommonJS)', async () => {
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
    expect(tarball).toMatch(/^svc-sdk-\d+\.\d+\.\d+\.tgz$/);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`], project);

    const apiKey = await system.apiKey(`org_pack_${Date.now()}`);
    writeFileSync(path.join(project, 'check.mjs'), SCRIPT);
    const env = { SVC_BASE_URL: system.env.MEDIA_PUBLIC_BASE_URL!, SVC_API_KEY: apiKey };
    const out = JSON.parse(await run(process.execPath, ['check.mjs'], project, env)) as unknown;
    expect(out).toEqual({ total: 0, missing: 404, event: 'post.published', openapi: '3.1.0', uploadFile: 'function' });

    writeFileSync(
      path.join(project, 'check.cjs'),
      "const { createClient } = require('@svc/sdk'); console.log(typeof createClient, require('@svc/sdk/openapi.json').openapi);",
    );
    expect((await run(process.execPath, ['check.cjs'], project)).trim()).toBe('function 3.1.0');

    const installed = path.join(project, 'node_modules/@svc/sdk');
    const { files, external } = moduleGraph(path.join(installed, 'dist/index.js'), (from, specifier) =>
      path.resolve(path.dirname(from), specifier),
    );
    expect(files.size).toBeGreaterThan(10);
    expect(nodeOnly(external)).toEqual([]);
    expect([...external]).toEqual(['openapi-fetch']);
  }, 240_000);
});
