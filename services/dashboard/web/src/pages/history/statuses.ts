import type { ResponseData } from '@svc/sdk';

type Status = ResponseData<'getPost'>['status'];

export const STATUS_COLOR: Record<Status, string> = {
  draft: 'gray',
  scheduled: 'blue',
  queued: 'cyan',
  processing: 'cyan',
  published: 'green',
  partial: 'orange',
  failed: 'red',
  canceled: 'gray',
};

/** Statuses that do not change by themselves: the page stops polling a post once it reaches one (a draft moves only when someone sends it). */
export const FINAL: ReadonlySet<string> = new Set(['draft', 'published', 'partial', 'failed', 'canceled']);
