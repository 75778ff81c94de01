/**
 * The handle of an attempt that uploads media before its create call (X media ids, LinkedIn image and
 * video URNs). It is stored before the adapter waits for the network to process the files, so that
 * (1) a later attempt, once the earlier one's post is known not to exist, reuses the uploaded files
 * instead of uploading and waiting again, and (2) a lookup recognizes the attempt's post by its
 * media, which no other post carries, instead of by text and time alone.
 */
const PREFIX = 'media:';

export function mediaHandle(ids: readonly string[]): string {
  return PREFIX + JSON.stringify(ids);
}

/** The media ids a handle holds; undefined for any other kind of handle (TikTok publish_id, ...). */
export function mediaIdsOf(handle: string | undefined): string[] | undefined {
  if (handle === undefined || !handle.startsWith(PREFIX)) return undefined;
  try {
    const ids: unknown = JSON.parse(handle.slice(PREFIX.length));
    return Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string')
      ? (ids as string[])
      : undefined;
  } catch {
    return undefined;
  }
}
