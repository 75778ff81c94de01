import { handleEachItem } from './each-item.ts';

describe('handleEachItem', () => {
  it('handles every item, and fails with the first failure only after the others settled', async () => {
    const done: number[] = [];
    const slow = (n: number) =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          done.push(n);
          resolve();
        }, 20),
      );
    const failing = handleEachItem([1, 2, 3], async (n) => {
      if (n === 2) throw new Error('item 2');
      await slow(n);
    });
    await expect(failing).rejects.toThrow('item 2');
    expect(done.sort()).toEqual([1, 3]);
    await expect(handleEachItem([1, 2], slow)).resolves.toBeUndefined();
  });
});
