import { spawn } from 'node:child_process';
import path from 'node:path';
import { markdownExamples } from '../support/markdown-examples.ts';
import { NETWORKS } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { cliHome, ROOT, type CliHome, type CliResult } from './cli-process.ts';

// The newcomer's first run, as the README tells it: a development system whose demo organization
// the seed (scripts/seed-demo.mjs, run by scripts/start) gave one sandbox account per network, then
// the README's quick-start commands and every runnable example of docs/cli.md, run by bash with
// scripts/svc exactly as written.
let system: SystemHarness;
let seedEnv: Record<string, string>;
let seeded: CliResult;
const homes: CliHome[] = [];

beforeAll(async () => {
  system = await startSystem({
    services: ['accounts', 'publisher', 'analytics-sync'],
    // As on scripts/start: no verified TikTok prefix but the media library's own address.
    env: { NODE_ENV: 'development', PROVIDER_TIMEOUT_MS: '5000', TIKTOK_VERIFIED_URL_PREFIXES: '' },
  });
  // As scripts/start does once the services answer: every example below relies on it.
  seedEnv = { ...system.env, PATH: process.env.PATH ?? '', SVC_BASE_URL: system.env.MEDIA_PUBLIC_BASE_URL! };
  seeded = await run(process.execPath, ['scripts/seed-demo.mjs'], seedEnv);
}, 120_000);
afterAll(async () => {
  await system?.close();
  await Promise.all(homes.map((home) => home.remove()));
});

function run(command: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A hung example is stopped, so the failure shows what it printed.
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function runExamples(file: string): Promise<void> {
  const home = await cliHome(system.env.MEDIA_PUBLIC_BASE_URL!);
  homes.push(home);
  const examples = markdownExamples(path.join(ROOT, file), 'sh');
  expect(examples.length).toBeGreaterThan(0);
  for (const example of examples) {
    const result = await run('bash', ['-euo', 'pipefail', '-c', example.code], home.env);
    if (result.code !== 0)
      throw new Error(`${file}:${example.line} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
}

describe('the first run', () => {
  it('seeds the demo organization with one sandbox account per network, once', async () => {
    expect(seeded).toMatchObject({ code: 0, stderr: '' });
    for (const network of NETWORKS) expect(seeded.stdout).toMatch(new RegExp(`^connected ${network} account `, 'm'));
    const again = await run(process.execPath, ['scripts/seed-demo.mjs'], seedEnv);
    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/already has 5 account\(s\): nothing to seed/),
    });
  });

  it("the README's quick start publishes the sample image on all five networks", async () => {
    const before = await Promise.all(NETWORKS.map(async (network) => (await system.sandbox.posts(network)).length));
    await runExamples('README.md');
    const after = await Promise.all(NETWORKS.map(async (network) => (await system.sandbox.posts(network)).length));
    expect(after.map((count, index) => count - before[index]!)).toEqual([1, 1, 1, 1, 1]);
  }, 180_000);

  it('every runnable example of docs/cli.md runs', async () => {
    await runExamples('docs/cli.md');
  }, 180_000);
});
