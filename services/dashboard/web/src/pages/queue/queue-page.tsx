import {
  Alert,
  Badge,
  Button,
  CloseButton,
  Group,
  List,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SvcApiError } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime, userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { WEEKDAYS, type Weekday } from '../../components/weekdays.ts';
import { addSlot, queueFieldOf, removeSlot, slotsByDay, type Slot } from './queue-slots.ts';
import { QUEUE_KEY, useQueue } from './use-queue.ts';

const ZONES = Intl.supportedValuesOf('timeZone');

/** Queue: the organization's weekly posting times in one time zone, and its next free slots. */
export default function QueuePage() {
  const queryClient = useQueryClient();
  const queue = useQueue();
  // The edit in progress; null shows the queue as the API has it.
  const [edit, setEdit] = useState<{ timezone: string; slots: Slot[] } | null>(null);
  const [day, setDay] = useState<Weekday>('mon');
  const [time, setTime] = useState('09:00');
  const [addProblem, setAddProblem] = useState<string | null>(null);
  const current = edit ?? {
    timezone: queue.data?.timezone ?? userTimeZone(),
    slots: queue.data?.slots ?? [],
  };
  const save = useMutation({
    mutationFn: () => api.queue.set(current),
    onSuccess: (saved) => {
      queryClient.setQueryData(QUEUE_KEY, saved);
      setEdit(null);
    },
  });
  const details = save.error instanceof SvcApiError && save.error.code === 'validation_error' ? save.error.details : [];
  const problemsOf = (field: 'timezone' | 'slots') =>
    details
      .filter((d) => queueFieldOf(d.path) === field)
      .map((d) => d.message)
      .join(' ') || undefined;
  const change = (next: Partial<typeof current>) => setEdit({ ...current, ...next });

  return (
    <Stack maw={760}>
      <PageTitle>Queue</PageTitle>
      <Text>
        Posts added to the queue (Compose, “Add to queue”) go out at the next of these weekly times that no other queued
        post holds.
      </Text>
      <ErrorAlert error={queue.error} />
      {queue.data === null && edit === null && (
        <Alert color="blue" title="No queue yet">
          Add the times below and save.
        </Alert>
      )}
      <Select
        label="Time zone of the times"
        searchable
        data={ZONES}
        value={current.timezone}
        allowDeselect={false}
        onChange={(zone) => zone !== null && change({ timezone: zone })}
        error={problemsOf('timezone')}
        maw={360}
      />
      <Title order={3} size="h5">
        Weekly times
      </Title>
      {current.slots.length === 0 && <Text c="gray.7">No times yet.</Text>}
      <Table aria-label="Weekly times">
        <Table.Tbody>
          {slotsByDay(current.slots).map(({ day: d, label, times }) => (
            <Table.Tr key={d} data-testid="queue-day">
              <Table.Th scope="row">{label}</Table.Th>
              <Table.Td>
                <Group gap="xs">
                  {times.map((t) => (
                    <Badge
                      key={t}
                      variant="outline"
                      color="gray"
                      rightSection={
                        <CloseButton
                          size="xs"
                          aria-label={`Remove ${label} ${t}`}
                          onClick={() => change({ slots: removeSlot(current.slots, { day: d, time: t }) })}
                        />
                      }
                    >
                      {t}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {problemsOf('slots') && (
        <Text c="red.8" size="sm" role="alert">
          {problemsOf('slots')}
        </Text>
      )}
      <Group align="end">
        <Select
          label="Day"
          data={WEEKDAYS.map((d) => ({ value: d.value, label: d.label }))}
          value={day}
          allowDeselect={false}
          onChange={(v) => v !== null && setDay(v as Weekday)}
          maw={180}
        />
        <TextInput
          type="time"
          label="Time"
          value={time}
          onChange={(e) => setTime(e.currentTarget.value)}
          error={addProblem ?? undefined}
          maw={160}
        />
        <Button
          variant="default"
          onClick={() => {
            const added = addSlot(current.slots, { day, time });
            setAddProblem('problem' in added ? added.problem : null);
            if ('slots' in added) change({ slots: added.slots });
          }}
        >
          Add time
        </Button>
      </Group>
      <Group>
        <Button onClick={() => save.mutate()} loading={save.isPending} disabled={edit === null}>
          Save queue
        </Button>
        {edit !== null && (
          <Button variant="subtle" onClick={() => setEdit(null)}>
            Discard changes
          </Button>
        )}
        {save.isSuccess && edit === null && (
          <Text size="sm" role="status">
            Queue saved.
          </Text>
        )}
      </Group>
      {!(save.error instanceof SvcApiError && save.error.code === 'validation_error') && (
        <ErrorAlert error={save.error} />
      )}
      {queue.data && (
        <Stack gap="xs">
          <Title order={3} size="h5">
            Next free slots
          </Title>
          {queue.data.next_slots.length === 0 ? (
            <Text>None: every time of the next two years is taken, or the queue has no times.</Text>
          ) : (
            <List aria-label="Next free slots" data-testid="next-slots">
              {queue.data.next_slots.map((slot) => (
                <List.Item key={slot}>{formatDateTime(slot, queue.data!.timezone)}</List.Item>
              ))}
            </List>
          )}
        </Stack>
      )}
    </Stack>
  );
}
