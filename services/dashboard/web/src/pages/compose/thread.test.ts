import { partOf, problemsOfAddedParts, removePart, setPart, threadBody } from './thread.ts';

describe('an X thread in Compose', () => {
  it('sends the post text and its media as the first part, then each added part in order', () => {
    expect(threadBody('One', ['med_1'], ['Two', 'Three'])).toEqual([
      { text: 'One', media_ids: ['med_1'] },
      { text: 'Two' },
      { text: 'Three' },
    ]);
    expect(threadBody('One', [], ['Two'])).toEqual([{ text: 'One' }, { text: 'Two' }]);
  });

  it('edits and removes one added part, leaving the others in place', () => {
    const parts = ['a', 'b', 'c'];
    expect(setPart(parts, 1, 'B')).toEqual(['a', 'B', 'c']);
    expect(removePart(parts, 0)).toEqual(['b', 'c']);
    expect(parts).toEqual(['a', 'b', 'c']);
  });

  it('shows each problem under the part its path names; the first part is the text field', () => {
    expect(partOf({ path: '/body/thread/2/text' })).toBe(2);
    expect(partOf({ path: '/thread/0' })).toBe(0);
    expect(partOf({ path: '/body/text' })).toBeNull();
    expect(partOf({ path: '/body/thread_x/1' })).toBeNull();
    const byPart = problemsOfAddedParts([
      { path: '/body/thread/0/text', message: 'too long' },
      { path: '/body/thread/2/text', message: 'must not be empty' },
      { path: '/body/thread/2/text', message: 'must not be empty' },
      { path: '/body/thread/1/text', message: 'too long' },
    ]);
    expect([...byPart.entries()].sort()).toEqual([
      [0, ['too long']],
      [1, ['must not be empty']],
    ]);
  });
});
