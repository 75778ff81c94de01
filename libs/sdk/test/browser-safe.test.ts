// The main entry must run in browsers: its module graph imports nothing of Node's (no `node:` module,
// no bare built-in) and no package but openapi-fetch. Node-only helpers live in `@svc/sdk/node`.
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module reachable from `entry` through relative imports, and every other specifier they name. */
export function moduleGraph(entry: string, resolveRelative: (from: string, specifier: string) => string) {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    if (file.endsWith('.json')) return;
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith('.')) visit(resolveRelative(file, specifier));
      else external.add(specifier);
    }
  };
  visit(entry);
  return { files, external };
}

export function nodeOnly(specifiers: Iterable<string>): string[] {
  const builtins = new Set(builtinModules);
  return [...specifiers].filter((specifier) => specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!));
}

describe('the main entry of @svc/sdk', () => {
  it('imports nothing of Node and no package but openapi-fetch', () => {
    const src = path.resolve(__dirname, '../src');
    const { files, external } = moduleGraph(path.join(src, 'index.ts'), (from, specifier) =>
      path.resolve(path.dirname(from), specifier),
    );
    expect(files.size).toBeGreaterThan(10);
    expect([...files].some((file) => file.includes(`${path.sep}node${path.sep}`))).toBe(false);
    expect(nodeOnly(external)).toEqual([]);
    expect([...external].filter((specifier) => specifier !== 'openapi-fetch')).toEqual([]);
  });

  it('is told apart from the node entry, which does use Node', () => {
    const src = path.resolve(__dirname, '../src');
    const { external } = moduleGraph(path.join(src, 'node/index.ts'), (from, specifier) =>
      path.resolve(path.dirname(from), specifier),
    );
    expect(nodeOnly(external)).toEqual(expect.arrayContaining(['node:fs']));
  });
});
