// Webhook endpoints and their deliveries (dashboard JWT only). To check a delivery your receiver got,
// see verifyWebhook.
import type { RequestOptions, Call } from '../call.ts';
import type { QueryParams, RequestBody, ResponseData } from '../contract.ts';
import { cursorPaginated, singlePage } from '../pagination.ts';

export function webhooksResource(call: Call) {
  return {
    /** Every endpoint of the organization (one page: the API answers them all at once). */
    list: (options?: RequestOptions) => singlePage(() => call('listWebhooks', { ...options })),
    /** Register an endpoint; the answer's `signing_secret` is shown only here. */
    create: (body: RequestBody<'createWebhook'>, options?: RequestOptions) =>
      call('createWebhook', { body, ...options }),
    /** Change `url`, `events` or `active` (true resumes an auto-paused endpoint). */
    update: (webhookId: string, body: RequestBody<'updateWebhook'>, options?: RequestOptions) =>
      call('updateWebhook', { path: { webhook_id: webhookId }, body, ...options }),
    remove: (webhookId: string, options?: RequestOptions) =>
      call('deleteWebhook', { path: { webhook_id: webhookId }, ...options }),
    /** Send a sample event now and answer what the receiver said. */
    test: (webhookId: string, options?: RequestOptions) =>
      call('testWebhook', { path: { webhook_id: webhookId }, ...options }),
    /** A new signing secret (shown once); the earlier one keeps signing for 24 h. */
    rotateSecret: (webhookId: string, options?: RequestOptions) =>
      call('rotateWebhookSecret', { path: { webhook_id: webhookId }, ...options }),
    /** Deliveries, newest first, each with its latest attempts. */
    deliveries: (webhookId: string, query: QueryParams<'listWebhookDeliveries'> = {}, options?: RequestOptions) =>
      cursorPaginated<
        ResponseData<'listWebhookDeliveries'>['items'][number],
        ResponseData<'listWebhookDeliveries'>,
        QueryParams<'listWebhookDeliveries'>
      >(query, (page) => call('listWebhookDeliveries', { path: { webhook_id: webhookId }, query: page, ...options })),
    /** Send a delivery of the last 14 days again (same body and X-Svc-Delivery). */
    replay: (webhookId: string, deliveryId: string, options?: RequestOptions) =>
      call('replayWebhookDelivery', { path: { webhook_id: webhookId, delivery_id: deliveryId }, ...options }),
  };
}
