// The organization's posting queue: weekly times in one zone that `posts.create({queue: true})` fills.
import type { Call, RequestOptions } from '../call.ts';
import type { RequestBody } from '../contract.ts';

export function queueResource(call: Call) {
  return {
    /** The queue with its next free times (`next_slots`); a 404 SvcApiError when none is set. */
    get: (options?: RequestOptions) => call('getQueue', { ...options }),
    /** Replace the queue (`{timezone, slots: [{day, time}]}`); posts already queued keep their times. */
    set: (body: RequestBody<'setQueue'>, options?: RequestOptions) => call('setQueue', { body, ...options }),
  };
}
