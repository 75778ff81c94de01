import { Alert, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { weekdayLabel } from '../../components/weekdays.ts';

const STATUS = { active: 'Repeating', cancelled: 'Stopped', finished: 'Finished' } as const;

/** The weekly rule a post is an occurrence of: its days, time and next times; stop it. */
export function RecurrencePanel({ recurrenceId }: { recurrenceId: string }) {
  const queryClient = useQueryClient();
  const recurrence = useQuery({
    queryKey: ['recurrence', recurrenceId],
    queryFn: () => api.recurrences.get(recurrenceId),
  });
  const stop = useMutation({
    mutationFn: () => api.recurrences.delete(recurrenceId),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['recurrence', recurrenceId] });
      void queryClient.invalidateQueries({ queryKey: ['posts'] });
    },
  });
  const data = recurrence.data;
  return (
    <Stack gap="xs" data-testid="recurrence">
      <Title order={3} size="h5">
        Repeats weekly
      </Title>
      <ErrorAlert error={recurrence.error} />
      {data && (
        <>
          <Text size="sm">
            {STATUS[data.status]}: {data.rule.days.map(weekdayLabel).join(', ')} at {data.rule.time} (
            {data.rule.timezone}){data.rule.count !== undefined && `, ${data.rule.count} posts in all`}
            {data.rule.until !== undefined && `, until ${formatDateTime(data.rule.until)}`} · {data.occurrences_created}{' '}
            created so far
          </Text>
          {data.next_occurrences.length > 0 && (
            <Text size="sm">Next: {data.next_occurrences.map((at) => formatDateTime(at)).join(' · ')}</Text>
          )}
          {data.status === 'active' && (
            <Group>
              <Button color="red.9" variant="outline" loading={stop.isPending} onClick={() => stop.mutate()}>
                Stop repeating
              </Button>
            </Group>
          )}
          {stop.isSuccess && (
            <Alert color="green" role="status">
              Stopped: no more posts will be created, and those still scheduled were canceled.
            </Alert>
          )}
          <ErrorAlert error={stop.error} />
        </>
      )}
    </Stack>
  );
}
