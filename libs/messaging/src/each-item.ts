/**
 * Handles every item a message carries (a job's targets, events carried together) and fails with the
 * first failure only once all have settled: the message is acked when each item is done and retried
 * whole otherwise, never while some of its items still run. Each item's handling must be idempotent,
 * since a retried message handles the ones done again.
 */
export async function handleEachItem<T>(items: readonly T[], handle: (item: T) => Promise<unknown>): Promise<void> {
  const outcomes = await Promise.allSettled(items.map(handle));
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
