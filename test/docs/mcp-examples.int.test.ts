import path from 'node:path';
import { uniqueName } from '@svc/testing';
import { connectAccount } from '../publishing/publishing-support.ts';
import { markdownExamples } from '../support/markdown-examples.ts';
import { runTsExample } from '../support/run-ts-example.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

const examples = markdownExamples(path.resolve(__dirname, '../../docs/mcp.md'), 'ts');
let h: SystemHarness;
const saved = { SVC_BASE_URL: process.env.SVC_BASE_URL, SVC_API_KEY: process.env.SVC_API_KEY };

beforeAll(async () => {
  h = await startSystem({
    services: ['accounts', 'publisher', 'scheduler'],
  });
  const orgId = uniqueName('org');
  await connectAccount(h, `Bearer ${await h.token(orgId)}`, 'x');
  // The examples read these, as an agent's code would.
  process.env.SVC_BASE_URL = h.env.MEDIA_PUBLIC_BASE_URL!;
  process.env.SVC_API_KEY = await h.apiKey(orgId);
}, 60_000);
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = value;
  }
  await h?.close();
});

/** What each example prints, in order of the document. */
const EXPECTED_OUTPUT: ((lines: string[]) => void)[] = [
  (lines) => {
    expect(lines[0]!.split(', ')).toHaveLength(10);
    expect(lines[1]).toMatch(/^x \S+$/);
  },
  (lines) => {
    expect(lines[0]).toMatch(/^published https?:\/\//);
    expect(lines[1]).toBe('true not_found');
  },
];

describe('docs/mcp.md', () => {
  it('has the runnable TypeScript examples this test knows', () => {
    expect(examples).toHaveLength(EXPECTED_OUTPUT.length);
  });

  it.each(examples.map((example, index) => [example.line, example, index] as const))(
    'the example at line %i runs against the system',
    async (_line, example, index) => {
      const lines: string[] = [];
      await runTsExample(example, { log: (...args: unknown[]) => void lines.push(args.map(String).join(' ')) });
      EXPECTED_OUTPUT[index]!(lines);
    },
  );
});
