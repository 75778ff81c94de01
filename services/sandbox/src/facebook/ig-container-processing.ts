import { type FetchedMedia } from '../media/fetch-media.ts';
import { isVideoFormat } from '../media/sniff.ts';
import { type IgContainer } from './graph-records.ts';

/**
 * A failed container's `status`, as Instagram words it: the subcode at the end (recorded from
 * production in gitroomhq/postiz-app#1992, "Error: Media upload has failed with error code 2207082";
 * META-IG-CONTAINER: "If status_code is ERROR, this value will be an error subcode").
 */
export const containerErrorText = (subcode: number) => `Error: Media upload has failed with error code ${subcode}`;

/** docs/networks.md §1.3: the media could not be fetched from its URL. */
export const FETCH_FAILED = 2207052;
const UNSUPPORTED_IMAGE = 2207005;
const UNSUPPORTED_VIDEO = 2207026;
const CAROUSEL_INVALID = 2207028;

function fail(container: IgContainer, subcode: number): void {
  container.statusCode = 'ERROR';
  container.errorText = containerErrorText(subcode);
}

/** Why fetched media cannot make the container, if it cannot: unreachable, or not of its kind. */
function mediaProblem(result: FetchedMedia, kind: 'image' | 'video'): number | undefined {
  if (!result.ok) return FETCH_FAILED;
  if (kind === 'image') return result.format === 'jpeg' ? undefined : UNSUPPORTED_IMAGE;
  return isVideoFormat(result.format) ? undefined : UNSUPPORTED_VIDEO;
}

/**
 * Advances a container one status read (docs/networks.md §1.2). Within `processingPolls` reads it is
 * IN_PROGRESS, then FINISHED, or ERROR when its media failed:
 * - a video is downloaded in the background from creation on; until the download settles the
 *   container stays IN_PROGRESS;
 * - an image was fetched when the container was created (an unreachable URL is refused there), and
 *   is fetched once more by the read that would finish the container, standing for the processing
 *   Instagram does after the creation call: a URL that stopped serving the file after creation (a
 *   short-lived signed URL, a deleted file) ends it ERROR with 2207052 instead of FINISHED (when Meta
 *   copies the image is not documented: docs/networks.md §7);
 * - a carousel advances its children, and fails with 2207028 when one of them failed.
 */
export async function advanceContainer(
  container: IgContainer,
  containers: Map<string, IgContainer>,
  processingPolls: number,
  fetchMedia: (url: string) => Promise<FetchedMedia>,
): Promise<void> {
  if (container.statusCode !== 'IN_PROGRESS') return;
  const ready = container.polls >= processingPolls;
  container.polls += 1;
  if (container.download) {
    const result = container.download.result;
    if (!result) return;
    const problem = mediaProblem(result, 'video');
    if (problem !== undefined) return fail(container, problem);
  }
  if (container.mediaType === 'CAROUSEL') {
    const children = container.children.map((id) => containers.get(id));
    if (children.some((child) => child?.statusCode === 'ERROR')) return fail(container, CAROUSEL_INVALID);
    for (const child of children) if (child) await advanceContainer(child, containers, processingPolls, fetchMedia);
    if (!children.every((child) => child?.statusCode === 'FINISHED')) return;
  }
  if (!ready) return;
  if (container.kind === 'image' && container.mediaUrl !== undefined) {
    const problem = mediaProblem(await fetchMedia(container.mediaUrl), 'image');
    // Another read may have settled the container while this one fetched.
    if (container.statusCode !== 'IN_PROGRESS') return;
    if (problem !== undefined) return fail(container, problem);
  }
  container.statusCode = 'FINISHED';
}
