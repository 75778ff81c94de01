import { postTypeChoices } from './post-types.ts';

describe('post types offered per network', () => {
  it('offers a choice only where the accounts list several types, default first', () => {
    const choices = postTypeChoices([
      { provider: 'instagram', postTypes: ['feed', 'reel', 'story'] },
      { provider: 'x', postTypes: ['post'] },
    ]);
    expect([...choices]).toEqual([['instagram', ['feed', 'reel', 'story']]]);
  });

  it('keeps the types every account of the network takes', () => {
    const choices = postTypeChoices([
      { provider: 'tiktok', postTypes: ['video', 'photo', 'draft'] },
      { provider: 'tiktok', postTypes: ['video', 'photo'] },
    ]);
    expect(choices.get('tiktok')).toEqual(['video', 'photo']);
  });

  it('offers nothing for a network while one of its accounts has no known capabilities', () => {
    const choices = postTypeChoices([
      { provider: 'instagram', postTypes: ['feed', 'reel'] },
      { provider: 'instagram', postTypes: undefined },
      { provider: 'instagram', postTypes: ['feed', 'reel'] },
    ]);
    expect(choices.size).toBe(0);
  });
});
