// Runs every ```ts runnable example of docs/sdk.md against the whole system, as a reader would run
// it: each becomes a module (its imports on top, the rest in an async function) importing the SDK,
// with SVC_BASE_URL, SVC_API_KEY, SVC_TOKEN and SVC_ACCOUNT_ID set.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markdownExamples } from '../../../test/support/markdown-examples.ts';
import { connectAccount, startSdkSystem, type SdkSystem } from './support/sdk-system.ts';

const DOC = path.resolve(__dirname, '../../../docs/sdk.md');
const examples = markdownExamples(DOC, 'ts');
let sdk: SdkSystem;
let dir: string;

/** The example as a module: import lines stay on top, the rest runs in `run()` (top-level await). */
function asModule(code: string): string {
  const lines = code.split('\n');
  const imports = lines.filter((line) => /^import\s/.test(line));
  const body = lines.filter((line) => !/^import\s/.test(line));
  return `${imports.join('\n')}\n\nexport async function run(): Promise<void> {\n${body.join('\n')}\n}\n`;
}

beforeAll(async () => {
  sdk = await startSdkSystem(['accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync']);
  Object.assign(process.env, {
    SVC_BASE_URL: sdk.baseUrl,
    SVC_API_KEY: sdk.apiKey,
    SVC_TOKEN: sdk.token,
    SVC_ACCOUNT_ID: await connectAccount(sdk, 'x'),
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-docs-'));
}, 90_000);

afterAll(async () => {
  for (const name of ['SVC_BASE_URL', 'SVC_API_KEY', 'SVC_TOKEN', 'SVC_ACCOUNT_ID'])
    Reflect.deleteProperty(process.env, name);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  await sdk?.system.close();
}, 120_000);

describe('docs/sdk.md', () => {
  it('has runnable examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
  });

  it.each(examples.map((example) => [example.line, example] as const))(
    'runs the example at line %i',
    async (line, example) => {
      const file = path.join(dir, `example-${line}.ts`);
      writeFileSync(file, asModule(example.code));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { run } = require(file) as { run: () => Promise<void> };
      await run();
    },
    60_000,
  );
});
