import type { RequestBody } from '@svc/sdk';
import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { columns } from '../output/columns.ts';
import { collect } from '../parse.ts';
import { splitList } from '../post/post-body.ts';

const EVENTS = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'];

/** Webhook endpoints are managed with a dashboard token (docs/api-conventions.md, "Webhooks"). */
export function registerWebhooks(program: Command, io: CliIo): void {
  const webhooks = program.command('webhooks').description('webhook endpoints and their deliveries (dashboard token)');

  webhooks
    .command('list')
    .description('list webhook endpoints')
    .action(
      action(io, async (ctx) => {
        const client = await (await ctx.session()).dashboard();
        const items = await client.webhooks.list().page();
        ctx.out.result(items, () =>
          items.length === 0
            ? 'No webhook endpoints.'
            : columns(
                ['ID', 'STATUS', 'FORMAT', 'EVENTS', 'URL'],
                items.map((w) => [w.id, w.status, w.payload_format, w.events.join(','), w.url]),
              ),
        );
      }),
    );

  webhooks
    .command('create')
    .description('create an endpoint; prints its signing secret (shown once)')
    .argument('<url>', 'the receiver (https in production)')
    .option('--events <events>', `comma-separated or repeated (default all: ${EVENTS.join(', ')})`, collect)
    .option('--legacy', 'send Shape B payloads (one per target, Svc-Signature) instead of the envelope')
    .action(
      action<{ events?: string[]; legacy?: boolean }>(io, async (ctx, [url], options) => {
        const client = await (await ctx.session()).dashboard();
        const events = options.events === undefined ? EVENTS : splitList(options.events);
        const created = await client.webhooks.create({
          url: url as string,
          events: events as RequestBody<'createWebhook'>['events'],
          ...(options.legacy === true ? { payload_format: 'legacy' as const } : {}),
        });
        ctx.out.result(created, () =>
          [
            `Created webhook ${created.id} for ${created.events.join(', ')}.`,
            `Signing secret (shown once, keep it): ${created.signing_secret}`,
          ].join('\n'),
        );
      }),
    );

  webhooks
    .command('test')
    .description('send a test event to an endpoint and print the receiver’s answer')
    .argument('<webhook_id>')
    .action(
      action(io, async (ctx, [id]) => {
        const client = await (await ctx.session()).dashboard();
        const result = await client.webhooks.test(id as string);
        ctx.out.result(result, () =>
          result.error === null
            ? `The receiver answered HTTP ${result.status_code} (delivery ${result.id}).`
            : `No answer from the receiver: ${result.error} (delivery ${result.id}).`,
        );
      }),
    );

  webhooks
    .command('deliveries')
    .description('recent deliveries to an endpoint, newest first')
    .argument('<webhook_id>')
    .action(
      action(io, async (ctx, [id]) => {
        const client = await (await ctx.session()).dashboard();
        const page = await client.webhooks.deliveries(id as string).page();
        ctx.out.result(page, () =>
          page.items.length === 0
            ? 'No deliveries.'
            : columns(
                ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'CREATED'],
                page.items.map((d) => {
                  const last = d.attempts[d.attempts.length - 1];
                  return [
                    d.id,
                    d.event_type,
                    d.status,
                    d.attempts.length + d.attempts_omitted,
                    last === undefined ? null : (last.error ?? `HTTP ${last.status_code ?? '?'}`),
                    d.created_at,
                  ];
                }),
              ),
        );
      }),
    );

  webhooks
    .command('replay')
    .description('send a delivery again (same body and X-Svc-Delivery)')
    .argument('<webhook_id>')
    .argument('<delivery_id>')
    .action(
      action(io, async (ctx, [id, delivery]) => {
        const client = await (await ctx.session()).dashboard();
        const result = await client.webhooks.replay(id as string, delivery as string);
        ctx.out.result(result, () => `Replayed delivery ${result.id} (${result.status}).`);
      }),
    );
}
