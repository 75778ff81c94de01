// Fails the build when the first page's JavaScript (the entry chunk and every chunk it imports
// statically) passes the budget, gzipped. Routes are split with lazy imports; this keeps them so.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 250 * 1024;
const dist = path.resolve(import.meta.dirname, '..', 'dist');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));
const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
if (entry === undefined) throw new Error('no entry chunk in the Vite manifest');

const seen = new Set();
const visit = (chunk) => {
  if (seen.has(chunk.file)) return;
  seen.add(chunk.file);
  for (const name of chunk.imports ?? []) visit(manifest[name]);
};
visit(entry);
const sizes = [...seen].map((file) => [file, gzipSync(readFileSync(path.join(dist, file))).length]);
const total = sizes.reduce((sum, [, size]) => sum + size, 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
for (const [file, size] of sizes) process.stdout.write(`  ${file}: ${kb(size)} gzipped\n`);
process.stdout.write(`first page JavaScript: ${kb(total)} gzipped (budget ${kb(BUDGET_BYTES)})\n`);
if (total > BUDGET_BYTES) {
  process.stderr.write(`over budget by ${kb(total - BUDGET_BYTES)}: split a route or drop a dependency\n`);
  process.exit(1);
}
