import { columns, truncate } from './columns.ts';

describe('columns', () => {
  it('aligns cells under their headers, with - for empty cells', () => {
    expect(
      columns(
        ['ID', 'NAME'],
        [
          ['1', 'first'],
          ['1234', null],
        ],
      ),
    ).toBe('ID    NAME\n1     first\n1234  -');
  });

  it('keeps a cell on one line', () => {
    expect(columns(['A'], [['two\nlines']])).toBe('A\ntwo lines');
  });
});

describe('truncate', () => {
  it('cuts long text with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
  });
});
