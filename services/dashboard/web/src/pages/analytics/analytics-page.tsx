import { Badge, Group, Paper, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { QueryParams } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { NETWORKS, networkLabel } from '../accounts/networks.ts';
import { metricKeys, seriesOf } from './metric-series.ts';

type Query = QueryParams<'listPostAnalytics'>;
const SYNC_COLOR = {
  synced: 'green',
  partial: 'yellow',
  pending: 'blue',
  failed: 'red',
  requires_reconnect: 'red',
} as const;

/** Per-post analytics: a metric over time, the page's totals, and how fresh each row is. */
export default function AnalyticsPage() {
  const [platform, setPlatform] = useState<Query['platform'] | null>(null);
  const [accountId, setAccountId] = useState<string | null>(null);
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: () => api.accounts.list({ limit: 100 }).page() });
  const query: Query = { limit: 100, ...(platform ? { platform } : {}), ...(accountId ? { accountId } : {}) };
  const rows = useQuery({ queryKey: ['analytics', query], queryFn: () => api.analytics.list(query).page() });
  const items = rows.data?.items ?? [];
  const keys = metricKeys(items);
  const [metric, setMetric] = useState<string | null>(null);
  const shown = metric !== null && keys.includes(metric) ? metric : (keys[0] ?? null);
  const series = shown === null ? [] : seriesOf(items, shown);

  return (
    <Stack>
      <PageTitle>Analytics</PageTitle>
      <Group align="end">
        <Select
          label="Network"
          placeholder="Any"
          clearable
          data={[...NETWORKS]}
          value={platform ?? null}
          onChange={(v) => setPlatform(v as Query['platform'])}
        />
        <Select
          label="Account"
          placeholder="Any"
          clearable
          data={(accounts.data?.items ?? []).map((a) => ({
            value: a.id,
            label: `${networkLabel(a.provider)} · ${a.handle ?? a.platform_account_id}`,
          }))}
          value={accountId}
          onChange={setAccountId}
        />
        <Select label="Metric" data={keys} value={shown} onChange={setMetric} disabled={keys.length === 0} />
      </Group>
      <ErrorAlert error={rows.error} />
      {rows.data && (
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <Paper withBorder p="sm">
            <Text size="sm">Posts</Text>
            <Text fw={700} size="xl">
              {rows.data.overview.posts}
            </Text>
          </Paper>
          {Object.entries(rows.data.overview.metrics)
            .slice(0, 7)
            .map(([key, value]) => (
              <Paper withBorder p="sm" key={key}>
                <Text size="sm">{key}</Text>
                <Text fw={700} size="xl">
                  {value.toLocaleString()}
                </Text>
              </Paper>
            ))}
        </SimpleGrid>
      )}
      {shown !== null && (
        <Paper withBorder p="md">
          <Title order={3} size="h5" mb="sm">
            {shown} per post, by publication time
          </Title>
          <Text size="xs" mb="xs">
            Posts whose network does not report this metric, or not yet, leave a gap in the line.
          </Text>
          <div style={{ width: '100%', height: 260 }} role="img" aria-label={`Chart of ${shown} per post over time`}>
            <ResponsiveContainer>
              <LineChart data={series}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="at" tickFormatter={(at: string) => new Date(at).toLocaleDateString()} />
                <YAxis allowDecimals={false} />
                <Tooltip labelFormatter={(at) => formatDateTime(String(at))} />
                <Line type="monotone" dataKey="value" name={shown} stroke="#364fc7" connectNulls={false} dot />
              </LineChart>
            </ResponsiveContainer>
          </div>
        </Paper>
      )}
      <Table striped aria-label="Post analytics">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Post</Table.Th>
            <Table.Th>Network</Table.Th>
            <Table.Th>Metrics</Table.Th>
            <Table.Th>Sync</Table.Th>
            <Table.Th>Updated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((row) => (
            <Table.Tr key={`${row.post_id}-${row.account_id}`}>
              <Table.Td>
                <a href={row.platform_post_url} target="_blank" rel="noreferrer">
                  {row.text?.slice(0, 50) || row.platform_post_id}
                </a>
              </Table.Td>
              <Table.Td>{networkLabel(row.platform)}</Table.Td>
              <Table.Td>
                {Object.keys(row.metrics).length === 0
                  ? 'Not reported yet'
                  : Object.entries(row.metrics)
                      .map(([k, v]) => `${k} ${v}`)
                      .join(' · ')}
                {row.warnings.length > 0 && <Text size="xs">{row.warnings.join(' ')}</Text>}
              </Table.Td>
              <Table.Td>
                <Badge color={SYNC_COLOR[row.sync_status]} variant="light">
                  {row.sync_status.replace('_', ' ')}
                </Badge>
                {row.error_message && <Text size="xs">{row.error_message}</Text>}
              </Table.Td>
              <Table.Td>
                {formatDateTime(row.last_updated_at)}
                {row.stale_after !== undefined && new Date(row.stale_after) < new Date() && (
                  <Text size="xs">refresh due</Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {rows.data && items.length === 0 && <Text c="gray.7">No published post has analytics yet.</Text>}
    </Stack>
  );
}
