import type { ResponseData } from '@svc/sdk';

type Status = ResponseData<'getPost'>['status'];

export const STATUS_COLOR: Record<Status, string> = {
  scheduled: 'blue',
  queued: 'cyan',
  processing: 'cyan',
  published: 'green',
  partial: 'orange',
  failed: 'red',
  canceled: 'gray',
};

/** Final statuses: the page stops polling a post once it reaches one. */
export const FINAL: ReadonlySet<string> = new Set(['published', 'partial', 'failed', 'canceled']);
