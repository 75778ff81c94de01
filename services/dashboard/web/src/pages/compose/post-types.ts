/** What the capabilities say about one chosen account's post types (the default first). */
export interface AccountPostTypes {
  provider: string;
  postTypes: readonly string[] | undefined;
}

/**
 * The networks whose accounts offer a choice of post type, with the types to choose from: those
 * every chosen account of that network takes, in the API's order (default first). A network with
 * one type (X, LinkedIn) or whose capabilities are not known yet offers none.
 */
export function postTypeChoices(accounts: readonly AccountPostTypes[]): Map<string, string[]> {
  const byNetwork = new Map<string, string[] | null>();
  for (const { provider, postTypes } of accounts) {
    const seen = byNetwork.get(provider);
    if (postTypes === undefined || seen === null) {
      byNetwork.set(provider, null);
      continue;
    }
    byNetwork.set(provider, seen === undefined ? [...postTypes] : seen.filter((type) => postTypes.includes(type)));
  }
  const choices = new Map<string, string[]>();
  for (const [network, types] of byNetwork) if (types !== null && types.length > 1) choices.set(network, types);
  return choices;
}

const LABELS: Record<string, string> = {
  feed: 'Feed post',
  reel: 'Reel',
  story: 'Story',
  post: 'Post',
  video: 'Video',
  photo: 'Photo',
  draft: 'Draft in the app',
};

export const postTypeLabel = (type: string) => LABELS[type] ?? type;
