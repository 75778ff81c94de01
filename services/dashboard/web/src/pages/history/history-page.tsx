import { Badge, Button, Group, Select, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { QueryParams } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { CursorPager } from '../../components/cursor-pager.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { NETWORKS, networkLabel } from '../accounts/networks.ts';
import { PostDrawer } from './post-drawer.tsx';
import { STATUS_COLOR } from './statuses.ts';

type Query = QueryParams<'listPosts'>;
const STATUSES: NonNullable<Query['status']>[] = [
  'scheduled',
  'queued',
  'processing',
  'published',
  'partial',
  'failed',
  'canceled',
];
const PAGE_SIZE = 25;

/**
 * History: the API's filters (status, network, text search) and its keyset pages, one page at a
 * time, however long the history: each page is one request for PAGE_SIZE posts after the cursor of
 * the one before. The cursors of the pages already seen are kept so Previous goes back without a
 * count.
 */
export default function HistoryPage() {
  const [params, setParams] = useSearchParams();
  const [status, setStatus] = useState<Query['status'] | null>(null);
  const [provider, setProvider] = useState<Query['provider'] | null>(null);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const filters: Query = {
    limit: PAGE_SIZE,
    ...(status ? { status } : {}),
    ...(provider ? { provider } : {}),
    ...(q ? { q } : {}),
  };
  // The cursors belong to the filters they were read with: other filters start again at their
  // first page. Derived rather than reset on each keystroke, so typing a search does not fetch the
  // unfiltered first page again while the debounce waits.
  const filterKey = JSON.stringify(filters);
  const [paging, setPaging] = useState<{ filterKey: string; cursors: (string | undefined)[] }>({
    filterKey,
    cursors: [undefined],
  });
  const cursors = paging.filterKey === filterKey ? paging.cursors : [undefined];
  const setCursors = (next: (string | undefined)[]) => setPaging({ filterKey, cursors: next });
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['posts', filters, cursor],
    queryFn: () => api.posts.list({ ...filters, ...(cursor ? { cursor } : {}) }).page(),
    placeholderData: keepPreviousData,
  });
  const open = (id: string | null) => setParams(id === null ? {} : { post: id });

  return (
    <Stack>
      <PageTitle>History</PageTitle>
      <Group align="end">
        <Select
          label="Status"
          placeholder="Any"
          clearable
          data={STATUSES}
          value={status ?? null}
          onChange={(v) => setStatus(v as Query['status'])}
        />
        <Select
          label="Network"
          placeholder="Any"
          clearable
          data={[...NETWORKS]}
          value={provider ?? null}
          onChange={(v) => setProvider(v as Query['provider'])}
        />
        <TextInput label="Search text" value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
      </Group>
      <ErrorAlert error={page.error} />
      <Text size="sm" aria-live="polite" data-testid="history-total">
        {page.data === undefined
          ? 'Loading…'
          : `${page.data.total.toLocaleString()} ${page.data.total === 1 ? 'post' : 'posts'} · page ${cursors.length}`}
      </Text>
      <Table striped highlightOnHover aria-label="Posts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            <Table.Th>Text</Table.Th>
            <Table.Th>Networks</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>
              <VisuallyHidden>Open</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(page.data?.items ?? []).map((post) => (
            <Table.Tr key={post.id} data-testid="history-row">
              <Table.Td>{formatDateTime(post.created_at)}</Table.Td>
              <Table.Td style={{ maxWidth: 360, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {post.text}
              </Table.Td>
              <Table.Td>{post.providers.map(networkLabel).join(', ')}</Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLOR[post.status]} variant="light" data-testid="post-status">
                  {post.status}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="subtle"
                  onClick={() => open(post.id)}
                  aria-label={`Details of the post of ${formatDateTime(post.created_at)}`}
                >
                  Details
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <CursorPager
        cursors={cursors}
        onChange={setCursors}
        nextCursor={page.data?.next_cursor}
        placeholder={page.isPlaceholderData}
      />
      <PostDrawer postId={params.get('post')} onClose={() => open(null)} />
    </Stack>
  );
}
