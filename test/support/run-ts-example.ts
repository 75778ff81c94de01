import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import type { MarkdownExample } from './markdown-examples.ts';

const root = path.resolve(__dirname, '../..');

/**
 * Runs a TypeScript example of the docs as a reader would paste it into a file of this repository:
 * compiled to CommonJS (types erased, top-level `await` kept inside one async function), its imports
 * resolved from the repository's root, its `console` the one given. Rejects with what the example threw.
 */
export async function runTsExample(example: MarkdownExample, output: Pick<Console, 'log'>): Promise<void> {
  const { outputText, diagnostics = [] } = ts.transpileModule(example.code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    reportDiagnostics: true,
  });
  if (diagnostics.length > 0)
    throw new Error(
      `example at line ${example.line} does not compile: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`,
    );
  const requireFromRoot = createRequire(path.join(root, 'package.json'));
  const module = { exports: {} };
  const body = new Function(
    'require',
    'module',
    'exports',
    'console',
    `return (async () => {\n${outputText}\n})();`,
  ) as (...args: unknown[]) => Promise<void>;
  await body(requireFromRoot, module, module.exports, output);
}
