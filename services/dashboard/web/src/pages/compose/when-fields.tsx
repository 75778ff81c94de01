import { Anchor, Group, Radio, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router-dom';
import { formatDateTime } from '../../components/dates.ts';
import { useQueue } from '../queue/use-queue.ts';
import type { When } from './compose-body.ts';
import { RecurrenceFields } from './recurrence-fields.tsx';
import type { RecurrenceForm } from './recurrence.ts';

/** When the post goes out: now, at a time, in the queue's next free slot, or every week. */
export function WhenFields(props: {
  when: When;
  onWhen: (when: When) => void;
  wall: string;
  onWall: (wall: string) => void;
  recurrence: RecurrenceForm;
  onRecurrence: (value: RecurrenceForm) => void;
  timeZone: string;
  /** The schedule's own problem (past, empty) or the API's problems with the timing. */
  scheduleError: string | null;
  problems: string[];
}) {
  const { when, timeZone, problems } = props;
  return (
    <Stack gap="sm">
      <Radio.Group
        label="When"
        value={when}
        onChange={(v) => props.onWhen(v as When)}
        error={when === 'queue' ? problems.join(' ') || undefined : undefined}
      >
        <Group mt="xs">
          <Radio value="now" label="Publish now" />
          <Radio value="later" label="Schedule" />
          <Radio value="queue" label="Add to queue" />
          <Radio value="repeat" label="Repeat weekly" />
        </Group>
      </Radio.Group>
      {when === 'later' && (
        <TextInput
          type="datetime-local"
          label={`Date and time (${timeZone})`}
          value={props.wall}
          onChange={(e) => props.onWall(e.currentTarget.value)}
          error={props.scheduleError ?? (problems.join(' ') || undefined)}
        />
      )}
      {when === 'queue' && <NextSlot />}
      {when === 'repeat' && (
        <RecurrenceFields
          value={props.recurrence}
          onChange={props.onRecurrence}
          timeZone={timeZone}
          problems={problems}
        />
      )}
    </Stack>
  );
}

/** The queue's next free time, where the post will go (the API picks it when the post is created). */
function NextSlot() {
  const queue = useQueue();
  if (queue.isPending) return <Text size="sm">Reading the queue…</Text>;
  if (queue.isError) return <Text size="sm">The queue cannot be read right now; the API picks the slot anyway.</Text>;
  if (queue.data === null)
    return (
      <Text size="sm" c="red.8">
        No queue yet:{' '}
        <Anchor component={Link} to="/queue">
          set its weekly times
        </Anchor>{' '}
        first.
      </Text>
    );
  const next = queue.data.next_slots[0];
  return (
    <Text size="sm" data-testid="next-slot">
      {next === undefined ? 'The queue has no free time left.' : `Next free slot: ${formatDateTime(next)}`}
    </Text>
  );
}
