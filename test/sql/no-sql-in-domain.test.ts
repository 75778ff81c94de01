// A service's SQL lives in its data/ folder, named for what it does; domain/ calls those functions.
// This keeps every statement where statements.int.test.ts and a reader look for it.
import { findRawStatements, rawSqlSourceFiles, ROOT, sqlTextsOf } from './raw-statements.ts';
import path from 'node:path';

const inDomain = (file: string) => /^services\/[^/]+\/src\/domain\//.test(file);

describe('domain/ holds no SQL', () => {
  it('no raw SQL call in services/*/src/domain', () => {
    const calls = findRawStatements().filter((statement) => inDomain(statement.file));
    expect(calls.map((statement) => `${statement.file}:${statement.line} ${statement.via}`)).toEqual([]);
  });

  it('no SQL text in services/*/src/domain', () => {
    const texts = rawSqlSourceFiles()
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .filter((file) => inDomain(file))
      .flatMap((file) => sqlTextsOf(path.join(ROOT, file)).map(({ line, text }) => `${file}:${line} ${text}`));
    expect(texts).toEqual([]);
  });
});
