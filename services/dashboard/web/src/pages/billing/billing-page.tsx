import { Alert, Badge, Button, Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { checkoutNotice, checkoutOutcomeOf, confirmPollDelay } from './checkout-return.ts';

const SUBSCRIPTION = ['subscription'];

function Usage({ label, used, limit }: { label: string; used: number; limit: number }) {
  const percent = limit === 0 ? 100 : Math.min(100, Math.round((used / limit) * 100));
  return (
    <Paper withBorder p="sm">
      <Text size="sm">{label}</Text>
      <Text fw={700}>
        {used.toLocaleString()} of {limit.toLocaleString()}
      </Text>
      <Progress
        value={percent}
        color={percent >= 90 ? 'red' : 'indigo'}
        aria-label={`${label}: ${percent}% used`}
        mt="xs"
      />
    </Paper>
  );
}

/**
 * Usage this month, the plan's limits, and the hosted checkout and billing portal. Checkout comes
 * back here with `?checkout=success` or `?checkout=canceled`; after a payment the plan is read again
 * until Stripe's webhook has reached billing (checkout-return.ts).
 */
export default function BillingPage() {
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const outcome = checkoutOutcomeOf(params.get('checkout'));
  // Reads of the subscription before this page opened (a cached answer) are not polls of this visit.
  const readsOf = () => {
    const state = queryClient.getQueryState(SUBSCRIPTION);
    return (state?.dataUpdateCount ?? 0) + (state?.errorUpdateCount ?? 0);
  };
  const [readsBefore] = useState(readsOf);
  const stats = useQuery({ queryKey: ['stats'], queryFn: () => api.stats() });
  const subscription = useQuery({
    queryKey: SUBSCRIPTION,
    queryFn: () => api.billing.subscription(),
    refetchInterval: (query) =>
      confirmPollDelay(
        outcome,
        query.state.data?.plan,
        query.state.dataUpdateCount + query.state.errorUpdateCount - readsBefore,
      ),
  });
  const notice = checkoutNotice(outcome, subscription.data?.plan, readsOf() - readsBefore);
  const go = (url: string) => window.location.assign(url);
  const checkout = useMutation({ mutationFn: () => api.billing.checkout(), onSuccess: ({ url }) => go(url) });
  const portal = useMutation({ mutationFn: () => api.billing.portal(), onSuccess: ({ url }) => go(url) });
  const sub = subscription.data;
  return (
    <Stack>
      <PageTitle>Usage and billing</PageTitle>
      {notice && (
        <Alert color={notice.color} role="status" aria-live="polite">
          {notice.text}
        </Alert>
      )}
      <ErrorAlert error={stats.error ?? subscription.error ?? checkout.error ?? portal.error} />
      {stats.data && (
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <Paper withBorder p="sm">
            <Text size="sm">Posts this month</Text>
            <Text fw={700} size="xl">
              {stats.data.posts_this_month.toLocaleString()}
            </Text>
          </Paper>
          <Paper withBorder p="sm">
            <Text size="sm">Networks connected</Text>
            <Text fw={700} size="xl">
              {stats.data.connected_networks} / {stats.data.total_networks}
            </Text>
          </Paper>
          <Paper withBorder p="sm">
            <Text size="sm">Publishing now</Text>
            <Text fw={700} size="xl">
              {stats.data.queue_processing}
            </Text>
          </Paper>
          <Paper withBorder p="sm">
            <Text size="sm">Success rate this month</Text>
            <Text fw={700} size="xl">
              {Math.round(stats.data.success_rate * 100)}%
            </Text>
          </Paper>
        </SimpleGrid>
      )}
      {sub && (
        <Stack>
          <Group>
            <Title order={3}>Plan</Title>
            <Badge size="lg" variant="light">
              {sub.plan === 'pro' ? 'Pro' : 'Free'}
            </Badge>
            {sub.status !== 'none' && <Text size="sm">Subscription {sub.status.replace('_', ' ')}</Text>}
            {sub.current_period_end && (
              <Text size="sm">
                {sub.cancel_at_period_end ? 'Ends' : 'Renews'} {formatDateTime(sub.current_period_end)}
              </Text>
            )}
          </Group>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Usage
              label="Connected accounts"
              used={sub.usage.connected_accounts.used}
              limit={sub.usage.connected_accounts.limit}
            />
            <Usage
              label="Posts this month"
              used={sub.usage.posts_this_month.used}
              limit={sub.usage.posts_this_month.limit}
            />
          </SimpleGrid>
          <Group>
            {sub.plan === 'free' && notice?.pending !== true && (
              <Button onClick={() => checkout.mutate()} loading={checkout.isPending}>
                Upgrade to Pro
              </Button>
            )}
            {sub.status !== 'none' && (
              <Button variant="default" onClick={() => portal.mutate()} loading={portal.isPending}>
                Manage billing
              </Button>
            )}
          </Group>
        </Stack>
      )}
    </Stack>
  );
}
