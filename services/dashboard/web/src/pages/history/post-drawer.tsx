import { Alert, Anchor, Badge, Button, Drawer, Group, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { describeError } from '../../api/errors.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { RecurrencePanel } from './recurrence-panel.tsx';
import { canRetry, explainRetryError } from './retry-errors.ts';
import { FINAL, STATUS_COLOR } from './statuses.ts';

/**
 * One post with a row per target: its status, the network's post link, or why it failed; a failed
 * post's failed targets can be retried, and an occurrence of a weekly rule shows the rule.
 */
export function PostDrawer({ postId, onClose }: { postId: string | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: (id: string) => api.posts.retry(id),
    onSuccess: (post) => queryClient.setQueryData(['post', post.id], post),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['post', postId] });
      void queryClient.invalidateQueries({ queryKey: ['posts'] });
    },
  });
  const post = useQuery({
    queryKey: ['post', postId],
    queryFn: () => api.posts.get(postId!),
    enabled: postId !== null,
    // Until the post and its targets are final, read it again every 2 s.
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.status) ? false : 2000),
  });
  return (
    <Drawer opened={postId !== null} onClose={onClose} position="right" size="lg" title="Post details">
      <ErrorAlert error={post.error} />
      {post.data && (
        <Stack>
          <Text style={{ whiteSpace: 'pre-wrap' }}>{post.data.text}</Text>
          <Text size="sm">
            Status{' '}
            <Badge color={STATUS_COLOR[post.data.status]} variant="light" data-testid="detail-status">
              {post.data.status}
            </Badge>{' '}
            · created {formatDateTime(post.data.created_at)}
            {post.data.scheduled_at && ` · scheduled for ${formatDateTime(post.data.scheduled_at)}`}
          </Text>
          {canRetry(post.data.status) && (
            <Group>
              <Button onClick={() => retry.mutate(post.data.id)} loading={retry.isPending}>
                Retry failed targets
              </Button>
            </Group>
          )}
          {retry.isError && retry.variables === post.data.id && (
            <Alert color="red" role="alert" data-testid="retry-refused">
              {explainRetryError(retry.error) ?? describeError(retry.error)}
            </Alert>
          )}
          {post.data.recurrence_id !== undefined && <RecurrencePanel recurrenceId={post.data.recurrence_id} />}
          <Table aria-label="Targets">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Network</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>Attempts</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {post.data.results.map((result) => (
                <Table.Tr key={result.account_id} data-testid="target-row">
                  <Table.Td>{networkLabel(result.provider)}</Table.Td>
                  <Table.Td>{result.status}</Table.Td>
                  <Table.Td>
                    {result.platform_post_url ? (
                      <Anchor href={result.platform_post_url} target="_blank" rel="noreferrer">
                        View on {networkLabel(result.provider)}
                      </Anchor>
                    ) : result.error_message ? (
                      <Text size="sm" c="red.8">
                        {result.error_message}
                        {result.error_code && ` (${result.error_code})`}
                      </Text>
                    ) : (
                      '—'
                    )}
                    {result.published_at && <Text size="xs">published {formatDateTime(result.published_at)}</Text>}
                  </Table.Td>
                  <Table.Td>{result.attempts}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Drawer>
  );
}
