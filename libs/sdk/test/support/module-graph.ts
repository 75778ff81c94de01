// The modules an entry point reaches, to prove what it imports (no Node built-in in the browser entry).
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';

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
