import { Checkbox, Group, NumberInput, Radio, Stack, TextInput } from '@mantine/core';
import { WEEKDAYS, type Weekday } from '../../components/weekdays.ts';
import { recurrenceProblems, type RecurrenceForm } from './recurrence.ts';

/** "Repeat weekly": days, a time and an end, all in the user's time zone (named beside the time). */
export function RecurrenceFields({
  value,
  onChange,
  timeZone,
  problems,
}: {
  value: RecurrenceForm;
  onChange: (value: RecurrenceForm) => void;
  timeZone: string;
  /** The API's own problems with the rule. */
  problems: string[];
}) {
  const missing = recurrenceProblems(value);
  const set = (patch: Partial<RecurrenceForm>) => onChange({ ...value, ...patch });
  return (
    <Stack gap="sm">
      <Checkbox.Group
        label="Repeat on"
        value={value.days}
        onChange={(days) => set({ days: days as Weekday[] })}
        error={missing.days}
      >
        <Group mt="xs">
          {WEEKDAYS.map((day) => (
            <Checkbox key={day.value} value={day.value} label={day.label} />
          ))}
        </Group>
      </Checkbox.Group>
      <TextInput
        type="time"
        label={`Time (${timeZone})`}
        value={value.time}
        onChange={(e) => set({ time: e.currentTarget.value })}
        error={missing.time}
        maw={220}
      />
      <Radio.Group
        label="Ends"
        value={value.end}
        onChange={(end) => set({ end: end as RecurrenceForm['end'] })}
        error={missing.end ?? (problems.join(' ') || undefined)}
      >
        <Group mt="xs">
          <Radio value="never" label="Never" />
          <Radio value="until" label="On a day" />
          <Radio value="count" label="After a number of posts" />
        </Group>
      </Radio.Group>
      {value.end === 'until' && (
        <TextInput
          type="date"
          label="Last day"
          value={value.until}
          onChange={(e) => set({ until: e.currentTarget.value })}
          maw={220}
        />
      )}
      {value.end === 'count' && (
        <NumberInput
          label="Number of posts"
          min={1}
          value={value.count}
          onChange={(count) => set({ count: typeof count === 'number' ? count : '' })}
          maw={220}
        />
      )}
    </Stack>
  );
}
