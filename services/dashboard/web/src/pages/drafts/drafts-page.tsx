import { Alert, Anchor, Badge, Button, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { CursorPager } from '../../components/cursor-pager.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { approvalLabel } from './approval-status.ts';
import { DraftDrawer } from './draft-drawer.tsx';

const PAGE_SIZE = 25;

/** Drafts: the organization's posts kept as drafts, newest first, a page at a time; one opens in a drawer. */
export default function DraftsPage() {
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [published, setPublished] = useState<ResponseData<'getPost'> | null>(null);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['posts', 'drafts', cursor],
    queryFn: () => api.posts.list({ status: 'draft', limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }).page(),
    placeholderData: keepPreviousData,
  });
  const open = (id: string | null) => setParams(id === null ? {} : { post: id });

  return (
    <Stack>
      <PageTitle
        actions={
          <Button component={Link} to="/compose" variant="default">
            New post
          </Button>
        }
      >
        Drafts
      </PageTitle>
      {published !== null && (
        <Alert
          color="green"
          role="status"
          title={published.status === 'scheduled' ? 'Draft scheduled' : 'Draft sent for publishing'}
        >
          <Anchor component={Link} to={`/history?post=${published.id}`}>
            Follow it in History
          </Anchor>
        </Alert>
      )}
      <ErrorAlert error={page.error} />
      {page.data?.items.length === 0 && <Text>No drafts. Compose a post and choose “Save as draft”.</Text>}
      <Table striped highlightOnHover aria-label="Drafts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Saved</Table.Th>
            <Table.Th>Text</Table.Th>
            <Table.Th>Networks</Table.Th>
            <Table.Th>Approval</Table.Th>
            <Table.Th>
              <VisuallyHidden>Open</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(page.data?.items ?? []).map((post) => {
            const approval = approvalLabel(post.approval);
            return (
              <Table.Tr key={post.id} data-testid="draft-row">
                <Table.Td>{formatDateTime(post.created_at)}</Table.Td>
                <Table.Td style={{ maxWidth: 360, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                  {post.text}
                </Table.Td>
                <Table.Td>{post.providers.map(networkLabel).join(', ')}</Table.Td>
                <Table.Td>
                  <Badge color={approval.color} variant="light">
                    {approval.label}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="subtle"
                    onClick={() => open(post.id)}
                    aria-label={`Open the draft “${post.text.slice(0, 40)}”`}
                  >
                    Open
                  </Button>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      <CursorPager
        cursors={cursors}
        onChange={setCursors}
        nextCursor={page.data?.next_cursor}
        placeholder={page.isPlaceholderData}
      />
      <DraftDrawer
        postId={params.get('post')}
        onClose={() => open(null)}
        onPublished={(post) => {
          setPublished(post);
          open(null);
        }}
      />
    </Stack>
  );
}
