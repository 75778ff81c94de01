import { type Classification } from '../errors/provider-error.ts';
import { classifyGraph } from '../graph/graph-classify.ts';
import { type NetworkResponse } from '../http/network-response.ts';

/** Instagram (Graph) API errors: same shape and codes as Facebook (docs/networks.md §1.3, §2.3). */
export function classifyInstagram(response: NetworkResponse, nowMs: number): Classification {
  return classifyGraph(response, nowMs);
}

/**
 * What the user can do about a container that failed with these subcodes (docs/networks.md §1.3).
 * Instagram's `status` alone is a bare number ("Error: Media upload has failed with error code
 * 2207052"), which says nothing to someone who has to fix the media.
 */
const CONTAINER_ADVICE: Record<string, string> = {
  2207052:
    'Instagram could not fetch the media from its URL: the URL must serve the file publicly (no sign-in, no private address) until Instagram has processed it. Publish again once it does.',
  2207003: 'Instagram timed out downloading the media.',
  2207004: 'The image is larger than Instagram accepts (8 MiB).',
  2207005: 'Instagram accepts only JPEG images.',
  2207009: 'The aspect ratio is outside what Instagram accepts (4:5 to 1.91:1).',
  2207026:
    "Instagram does not support this video's format: use MP4 or MOV with H.264 or HEVC video and AAC audio, 3 s to 15 min.",
  2207028: 'Instagram refused the carousel: one of its items failed.',
};

/**
 * A container that ended in `ERROR` or `EXPIRED`. The `status` text ends with the IG subcode
 * (e.g. "Error: Media upload has failed with error code 2207026"), which is classified like the
 * same subcode in an error response; the message says what the subcode means, then quotes Instagram.
 */
export function classifyContainerStatus(
  statusCode: string,
  statusText: string | undefined,
): Classification | undefined {
  if (statusCode === 'EXPIRED')
    return {
      kind: 'transient',
      networkCode: 'EXPIRED',
      networkMessage: 'The media container expired before it was published.',
    };
  if (statusCode !== 'ERROR') return undefined;
  const subcode = /(\d{7})\D*$/.exec(statusText ?? '')?.[1];
  const said = statusText ?? 'Media processing failed.';
  const base = classifyGraph(
    {
      status: 400,
      headers: {},
      data: { error: { code: 9004, ...(subcode ? { error_subcode: Number(subcode) } : {}), message: said } },
    },
    0,
  );
  const advice = subcode === undefined ? undefined : CONTAINER_ADVICE[subcode];
  return {
    ...base,
    networkCode: subcode ? `ERROR/${subcode}` : 'ERROR',
    networkMessage: advice === undefined ? said : `${advice} (Instagram: "${said}")`,
  };
}
