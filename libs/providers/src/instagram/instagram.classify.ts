import { type Classification } from '../errors/provider-error.ts';
import { classifyGraph } from '../graph/graph-classify.ts';
import { type NetworkResponse } from '../http/network-response.ts';

/** Instagram (Graph) API errors: same shape and codes as Facebook (docs/networks.md §1.3, §2.3). */
export function classifyInstagram(response: NetworkResponse, nowMs: number): Classification {
  return classifyGraph(response, nowMs);
}

/**
 * A container that ended in `ERROR` or `EXPIRED`. The `status` text ends with the IG subcode
 * (e.g. "Error: ... 2207026"), which is classified like the same subcode in an error response.
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
  const base = classifyGraph(
    {
      status: 400,
      headers: {},
      data: {
        error: {
          code: 9004,
          ...(subcode ? { error_subcode: Number(subcode) } : {}),
          message: statusText ?? 'Media processing failed.',
        },
      },
    },
    0,
  );
  return { ...base, networkCode: subcode ? `ERROR/${subcode}` : 'ERROR' };
}
