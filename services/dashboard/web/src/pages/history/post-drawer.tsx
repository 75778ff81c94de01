import { Anchor, Badge, Drawer, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { FINAL, STATUS_COLOR } from './statuses.ts';

/** One post with a row per target: its status, the network's post link, or why it failed. */
export function PostDrawer({ postId, onClose }: { postId: string | null; onClose: () => void }) {
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
