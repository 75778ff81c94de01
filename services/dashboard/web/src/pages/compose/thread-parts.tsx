import { Button, Group, Stack, Textarea } from '@mantine/core';
import { removePart, setPart } from './thread.ts';

/** The parts added under the text of an X thread, each with its own text and problems. */
export function ThreadParts({
  parts,
  onChange,
  problems,
}: {
  parts: string[];
  onChange: (parts: string[]) => void;
  /** The API's problems per added part. */
  problems: Map<number, string[]>;
}) {
  return (
    <Stack gap="xs">
      {parts.map((part, index) => (
        <Group key={index} align="end" wrap="nowrap">
          <Textarea
            style={{ flex: 1 }}
            label={`Thread part ${index + 2}`}
            autosize
            minRows={2}
            value={part}
            onChange={(e) => onChange(setPart(parts, index, e.currentTarget.value))}
            error={problems.get(index)?.join(' ') || undefined}
          />
          <Button variant="subtle" color="red.9" onClick={() => onChange(removePart(parts, index))}>
            Remove part {index + 2}
          </Button>
        </Group>
      ))}
      <Group>
        <Button variant="default" onClick={() => onChange([...parts, ''])}>
          Add a thread part
        </Button>
      </Group>
    </Stack>
  );
}
