// A service's SQL lives in its data/ folder, named for what it does; domain/ calls those functions.
// This keeps every statement where statements.int.test.ts and a reader look for it.
import { findRawStatements, rawSqlSourceFiles, ROOT, sqlTextsOf } from './raw-statements.ts';
import path from 'node:path';

/** Files of domain/ that still hold SQL, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'services/publisher/src/domain/run-delivery.ts': 'moved with the delivery-decision refactor',
  'services/publisher/src/domain/reconcile-delivery.ts': 'moved with the delivery-decision refactor',
  'services/publisher/src/domain/finish-job.ts': 'moved with the delivery-decision refactor',
  'services/publisher/src/domain/errors.ts': 'moved with the delivery-decision refactor',
};

const inDomain = (file: string) => /^services\/[^/]+\/src\/domain\//.test(file);

describe('domain/ holds no SQL', () => {
  it('no raw SQL call in services/*/src/domain', () => {
    const calls = findRawStatements().filter((statement) => inDomain(statement.file) && EXCEPTIONS[statement.file] === undefined);
    expect(calls.map((statement) => `${statement.file}:${statement.line} ${statement.via}`)).toEqual([]);
  });

  it('no SQL text in services/*/src/domain', () => {
    const texts = rawSqlSourceFiles()
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .filter((file) => inDomain(file) && EXCEPTIONS[file] === undefined)
      .flatMap((file) => sqlTextsOf(path.join(ROOT, file)).map(({ line, text }) => `${file}:${line} ${text}`));
    expect(texts).toEqual([]);
  });

  it('lists as exceptions only files that exist', () => {
    const files = new Set(rawSqlSourceFiles().map((file) => path.relative(ROOT, file).split(path.sep).join('/')));
    expect(Object.keys(EXCEPTIONS).filter((file) => !files.has(file))).toEqual([]);
  });
});
