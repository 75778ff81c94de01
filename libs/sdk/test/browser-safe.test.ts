// The main entry must run in browsers: its module graph imports nothing of Node's (no `node:` module,
// no bare built-in) and no package but openapi-fetch. Node-only helpers live in `@svc/sdk/node`.
import path from 'node:path';
import { moduleGraph, nodeOnly } from './support/module-graph.ts';

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
