import { Badge, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

const STATUS_COLOR = { pending: 'blue', succeeded: 'green', failed: 'red' } as const;

/** The deliveries log of one endpoint, newest first, a page at a time, each with its attempts and a replay. */
export function DeliveriesPanel({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['deliveries', webhookId, cursor],
    queryFn: () => api.webhooks.deliveries(webhookId, { limit: 20, ...(cursor ? { cursor } : {}) }).page(),
    // Pending deliveries change on their own: refreshed while any is pending.
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const replay = useMutation({
    mutationFn: (deliveryId: string) => api.webhooks.replay(webhookId, deliveryId),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['deliveries', webhookId] }),
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Deliveries</Title>
        <Button size="xs" variant="default" onClick={() => void page.refetch()}>
          Refresh
        </Button>
      </Group>
      <ErrorAlert error={page.error ?? replay.error} />
      {replay.isSuccess && (
        <Text role="status" c="green.9">
          Delivery replayed: a new attempt is on its way.
        </Text>
      )}
      <Table aria-label="Deliveries">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Event</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Attempts</Table.Th>
            <Table.Th>Next attempt</Table.Th>
            <Table.Th>Replay</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(page.data?.items ?? []).map((delivery) => (
            <Table.Tr key={delivery.id} data-testid="delivery-row">
              <Table.Td>
                {delivery.event_type}
                <Text size="xs" c="gray.7">
                  {formatDateTime(delivery.created_at)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLOR[delivery.status]} variant="light" data-testid="delivery-status">
                  {delivery.status}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Stack gap={2}>
                  {delivery.attempts.map((attempt) => (
                    <Text size="xs" key={attempt.id}>
                      {formatDateTime(attempt.created_at)}: {attempt.status_code ?? 'no answer'} in{' '}
                      {attempt.duration_ms} ms
                      {attempt.error && ` · ${attempt.error}`}
                      {attempt.response_excerpt && (
                        <>
                          {' '}
                          <Code>{attempt.response_excerpt.slice(0, 80)}</Code>
                        </>
                      )}
                    </Text>
                  ))}
                  {delivery.attempts_omitted > 0 && (
                    <Text size="xs">and {delivery.attempts_omitted} earlier attempts</Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{delivery.next_attempt_at ? formatDateTime(delivery.next_attempt_at) : '—'}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => replay.mutate(delivery.id)}
                  loading={replay.isPending && replay.variables === delivery.id}
                >
                  Replay
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {page.data?.items.length === 0 && <Text c="gray.7">No delivery yet.</Text>}
      <Group>
        <Button variant="default" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="default"
          disabled={!page.data?.next_cursor}
          onClick={() => page.data?.next_cursor && setCursors([...cursors, page.data.next_cursor])}
        >
          Older
        </Button>
      </Group>
    </Stack>
  );
}
