import { type Classification } from '../errors/provider-error.ts';
import { classifyGraph } from '../graph/graph-classify.ts';
import { type NetworkResponse } from '../http/network-response.ts';

/** Facebook Pages speak Graph errors (docs/networks.md §2.3); the Graph classifier is shared with Instagram. */
export function classifyFacebook(response: NetworkResponse, nowMs: number): Classification {
  return classifyGraph(response, nowMs);
}

/** A video whose processing failed (`status.video_status = error`) was refused for what it is. */
export function classifyVideoStatus(status: unknown): Classification | undefined {
  const record = typeof status === 'object' && status !== null ? (status as Record<string, unknown>) : {};
  if (record.video_status !== 'error') return undefined;
  const processing = record.processing_phase as { errors?: { code?: number; message?: string }[] } | undefined;
  const first = processing?.errors?.[0];
  return {
    kind: 'media_invalid',
    networkCode: first?.code === undefined ? 'video_error' : String(first.code),
    networkMessage: first?.message ?? 'Facebook could not process the video.',
  };
}
