/**
 * Every durable queue a service declares in a namespace, for suites that run services as processes:
 * quorum queues outlive their processes, so such a suite deletes them by name when it is done (a
 * shared broker piling up leftover Raft clusters stalls). Kept beside the services' topology: a new
 * queue of a service belongs here too, or runs leave it behind.
 */
export function serviceQueues(services: readonly string[]): string[] {
  const extra: Record<string, string[]> = {
    publisher: ['publisher.dispatch', 'publisher.dispatch.parking', 'publisher.accounts', 'publisher.accounts.parking'],
    'webhook-dispatcher': [
      'webhook-dispatcher.deliveries',
      'webhook-dispatcher.deliveries.parking',
      'webhook-dispatcher.tests.rpc',
    ],
  };
  return services.flatMap((name) => [
    `${name}.rpc`,
    `${name}.work`,
    `${name}.work.parking`,
    `${name}.plans`,
    `${name}.plans.parking`,
    ...(extra[name] ?? []),
  ]);
}
